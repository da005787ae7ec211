//go:build tools

// Package tools pins the commands this module builds.
package tools

import (
	_ "github.com/cert-manager/cert-manager/cmd/cainjector"
	_ "github.com/cert-manager/cert-manager/cmd/controller"
	_ "github.com/cert-manager/cert-manager/cmd/webhook"
)
