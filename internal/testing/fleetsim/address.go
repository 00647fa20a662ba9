/*
Copyright 2026 The Stagecoach Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package fleetsim

import (
	"net"
	"net/netip"
)

// hostsPerBlock: cluster addresses use hosts .1 to .254 of each /24, leaving out the .0 and
// .255 that some tools treat as network and broadcast addresses.
const hostsPerBlock = 254

// clusterAddr is the loopback address of cluster i: 127.1.0.1, 127.1.0.2, … 127.1.0.254,
// 127.1.1.1, … It never uses 127.0.0.x, which the rest of the machine uses. Distinct
// destination addresses let one client keep a connection to each of tens of thousands of
// clusters without running out of ephemeral ports.
func clusterAddr(i int) netip.Addr {
	block := i / hostsPerBlock
	return netip.AddrFrom4([4]byte{127, byte(1 + block/256), byte(block % 256), byte(i%hostsPerBlock + 1)})
}

// clusterIndex is the inverse of clusterAddr; false for an address no index maps to.
func clusterIndex(a netip.Addr) (int, bool) {
	a = a.Unmap()
	if !a.Is4() {
		return 0, false
	}
	b := a.As4()
	if b[0] != 127 || b[1] == 0 || b[3] == 0 || b[3] == 255 {
		return 0, false
	}
	block := int(b[1]-1)*256 + int(b[2])
	return block*hostsPerBlock + int(b[3]) - 1, true
}

// clusterAt returns the cluster whose address addr is, or nil.
func (f *Fleet) clusterAt(addr net.Addr) *Cluster {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil
	}
	i, ok := clusterIndex(tcp.AddrPort().Addr())
	if !ok || i >= len(f.clusters) {
		return nil
	}
	return f.clusters[i]
}
