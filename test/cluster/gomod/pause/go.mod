// The pod sandbox ("pause") program of the one-node cluster: nothing can be pulled here, so the
// kubelet's pause image is built from this.
module kruntimes.io/cluster/pause

go 1.26.0
