package webhook

import (
	"fmt"
	"net/netip"
	"strings"
)

// Policy decides which addresses webhooks may reach. Its zero value refuses every private,
// local and reserved address (see AddrAllowed); AllowCIDRs exempts the operator's ranges
// (`--webhook-allow-cidr 127.0.0.1/32` for a receiver on the same machine during development;
// empty by default). A Policy is a value: copy it freely, do not change AllowCIDRs while in use.
type Policy struct {
	// AllowCIDRs are exempt from the address check, both at save time (IP literals, and
	// localhost names when the allow-list holds 127.0.0.1 or ::1) and at connect time.
	AllowCIDRs []netip.Prefix
	// PlainHTTPLoopback accepts http:// URLs whose host is a loopback address the allow-list
	// holds (127.0.0.1, ::1, or localhost when those are allow-listed): a receiver on the
	// developer's own machine without a certificate. The server sets it in the test environment
	// only; production takes https alone.
	PlainHTTPLoopback bool
}

// NewPolicy parses the operator's allow-list: CIDRs ("127.0.0.0/8", "fd00::/8") or single
// addresses ("127.0.0.1", taken as /32 or /128). IPv4-mapped IPv6 prefixes are stored in their
// IPv4 form.
func NewPolicy(allowCIDRs ...string) (Policy, error) {
	var p Policy
	for _, s := range allowCIDRs {
		s = strings.TrimSpace(s)
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil || a.Zone() != "" {
				return Policy{}, fmt.Errorf("webhook allow-list: %q is not a CIDR or an IP address", s)
			}
			pfx = netip.PrefixFrom(a, a.BitLen())
		}
		if a := pfx.Addr(); a.Is4In6() {
			if pfx.Bits() < 96 {
				return Policy{}, fmt.Errorf("webhook allow-list: %q mixes IPv4-mapped and IPv6 space", s)
			}
			pfx = netip.PrefixFrom(a.Unmap(), pfx.Bits()-96)
		}
		p.AllowCIDRs = append(p.AllowCIDRs, pfx.Masked())
	}
	return p, nil
}

// allowListed reports whether a (unmapped, without zone) is in the allow-list.
func (p Policy) allowListed(a netip.Addr) bool {
	for _, pfx := range p.AllowCIDRs {
		if pfx.Contains(a) {
			return true
		}
	}
	return false
}

// AddrAllowed reports whether a webhook may connect to a. Refused, unless the allow-list holds
// a: loopback, RFC 1918 private, link-local (169.254.0.0/16 with the cloud metadata address,
// fe80::/10), CGNAT 100.64.0.0/10, unique local fc00::/7, 0.0.0.0/8, documentation,
// benchmarking and reserved ranges (192.0.0.0/24, 192.0.2.0/24, 198.18.0.0/15,
// 198.51.100.0/24, 203.0.113.0/24, 240.0.0.0/4, 2001:db8::/32, 3fff::/20...), every IPv6
// address outside global unicast 2000::/3, the IETF protocol block 2001::/23 (Teredo,
// ORCHID...), and IPv6 forms that embed an IPv4 address which is itself refused
// (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16). Always refused, even when
// allow-listed: unspecified addresses (0.0.0.0/8, ::), multicast and the limited broadcast
// 255.255.255.255, which are not destinations.
func (p Policy) AddrAllowed(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.WithZone("").Unmap()
	if a.IsUnspecified() || a.IsMulticast() || (a.Is4() && (a.As4()[0] == 0 || a == broadcast4)) {
		return false
	}
	return p.allowListed(a) || publicAddr(a)
}

var broadcast4 = netip.AddrFrom4([4]byte{255, 255, 255, 255})

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Refused IPv4 ranges: the IANA special-purpose registry, multicast and reserved space.
var blocked4 = mustPrefixes(
	"0.0.0.0/8",          // "this network"
	"10.0.0.0/8",         // private
	"100.64.0.0/10",      // shared address space (CGNAT)
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link-local, cloud metadata (169.254.169.254)
	"172.16.0.0/12",      // private
	"192.0.0.0/24",       // IETF protocol assignments
	"192.0.2.0/24",       // documentation TEST-NET-1
	"192.88.99.0/24",     // 6to4 relay anycast (deprecated)
	"192.168.0.0/16",     // private
	"198.18.0.0/15",      // benchmarking
	"198.51.100.0/24",    // documentation TEST-NET-2
	"203.0.113.0/24",     // documentation TEST-NET-3
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved, with 255.255.255.255 broadcast
	"255.255.255.255/32", // limited broadcast (also in 240/4; named for clarity)
)

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nat64          = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64 prefix, RFC 6052
	sixToFour      = netip.MustParsePrefix("2002::/16")    // 6to4, RFC 3056
)

// Refused IPv6 ranges inside global unicast 2000::/3 (everything outside it is refused).
var blocked6 = mustPrefixes(
	"2001::/23",     // IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID
	"2001:db8::/32", // documentation
	"3fff::/20",     // documentation, RFC 9637
)

// publicAddr reports whether a (unmapped, without zone) is a public unicast address.
func publicAddr(a netip.Addr) bool {
	if a.Is4() {
		for _, pfx := range blocked4 {
			if pfx.Contains(a) {
				return false
			}
		}
		return true
	}
	if nat64.Contains(a) {
		b := a.As16()
		return publicAddr(netip.AddrFrom4([4]byte(b[12:16])))
	}
	if !globalUnicast6.Contains(a) {
		return false
	}
	if sixToFour.Contains(a) {
		b := a.As16()
		return publicAddr(netip.AddrFrom4([4]byte(b[2:6])))
	}
	for _, pfx := range blocked6 {
		if pfx.Contains(a) {
			return false
		}
	}
	return true
}
