// Command pause holds a Pod's namespaces: it waits for SIGTERM or SIGINT and reaps orphans, as
// the upstream pause container does.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	children := make(chan os.Signal, 16)
	signal.Notify(children, syscall.SIGCHLD)
	for {
		select {
		case <-stop:
			return
		case <-children:
			for {
				pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}
}
