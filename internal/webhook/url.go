package webhook

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxURLLength is the longest webhook URL accepted, in characters (UTF-16 code units, as the
// service counts them).
const MaxURLLength = 2048

// The texts of spec 3 §4.5 for the Url property of webhook create and replace.
const (
	MessageURLMissing   = "La URL es obligatoria."
	MessageURLTooLong   = "La URL no puede tener más de 2048 caracteres."
	MessageURLNotHTTPS  = "La URL del webhook debe ser https, absoluta y sin usuario ni contraseña."
	MessageURLForbidden = "La URL del webhook apunta a una dirección no permitida."
)

// Reason says why CheckURL refused a URL; Message gives the text of the spec.
type Reason int

// Reasons of CheckURL.
const (
	// ReasonNone: the URL is accepted.
	ReasonNone Reason = iota
	// ReasonMissing: empty (or only blanks).
	ReasonMissing
	// ReasonTooLong: over MaxURLLength characters.
	ReasonTooLong
	// ReasonNotHTTPS: not https, not absolute, with user information, or not a well-formed
	// URL (a bad port, characters no host name may hold).
	ReasonNotHTTPS
	// ReasonForbiddenAddress: a private, local or reserved address, or a local name.
	ReasonForbiddenAddress
)

// Message returns the text of the spec for r ("" for ReasonNone).
func (r Reason) Message() string {
	switch r {
	case ReasonMissing:
		return MessageURLMissing
	case ReasonTooLong:
		return MessageURLTooLong
	case ReasonNotHTTPS:
		return MessageURLNotHTTPS
	case ReasonForbiddenAddress:
		return MessageURLForbidden
	}
	return ""
}

// String returns Message.
func (r Reason) String() string { return r.Message() }

// CheckURL is Policy{}.CheckURL: the check with an empty allow-list.
func CheckURL(raw string) (ok bool, reason Reason) { return Policy{}.CheckURL(raw) }

// CheckURL validates the url of a webhook create or replace (spec 3 §4.5), in this order:
// missing, too long, not an absolute https URL without user information (http to an
// allow-listed loopback host when PlainHTTPLoopback), then the host.
// It never resolves names: the connect-time guard (DialContext) covers what names resolve to.
//
// An IP literal is refused unless AddrAllowed accepts it, in every form a resolver might read:
// dotted IPv4, one to four parts in decimal, hex (0x) or octal (leading 0), such as
// 2130706433, 0x7f000001, 0x7f.0.0.1, 0177.0.0.1 and 127.1; IPv6 in brackets, including
// IPv4-mapped, NAT64 and 6to4 forms, and any literal with a zone id. A host whose last label
// is numeric but which is not a valid IPv4 address is refused too.
//
// A name is refused when it has a trailing dot, a single label (it would go through the
// resolver's search list to an internal host), or ends in a local or special-use domain:
// localhost, local, internal, localdomain, home.arpa, lan, home, corp, intranet, test,
// invalid, onion. localhost and *.localhost are accepted when the allow-list holds 127.0.0.1
// or ::1. Full-width characters and ideographic full stops are folded to ASCII first, as an
// IDNA mapping would; other mappings are left to the connect-time guard.
func (p Policy) CheckURL(raw string) (ok bool, reason Reason) {
	if strings.TrimSpace(raw) == "" {
		return false, ReasonMissing
	}
	if utf16Len(raw) > MaxURLLength {
		return false, ReasonTooLong
	}
	u, err := url.Parse(raw)
	plain := err == nil && u.Scheme == "http" && p.PlainHTTPLoopback
	if err != nil || u.Scheme != "https" && !plain || u.Opaque != "" || u.Host == "" || u.User != nil {
		return false, ReasonNotHTTPS
	}
	if plain {
		if ok, reason := p.checkHostOf(u); !ok || !loopbackHost(u.Hostname()) {
			if !ok && reason != ReasonNotHTTPS && loopbackHost(u.Hostname()) {
				return false, reason // a loopback host the allow-list does not hold
			}
			return false, ReasonNotHTTPS
		}
		return true, ReasonNone
	}
	return p.checkHostOf(u)
}

// loopbackHost tells whether a URL's host names the machine itself: a loopback IP literal, or
// localhost and its subdomains.
func loopbackHost(host string) bool {
	host = foldHost(host)
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().IsLoopback()
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// checkHostOf checks the port and host of a URL whose scheme is accepted.
func (p Policy) checkHostOf(u *url.URL) (bool, Reason) {
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return false, ReasonNotHTTPS
		}
	}
	host := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return false, ReasonNotHTTPS
		}
		if a.Zone() != "" || !p.AddrAllowed(a) {
			return false, ReasonForbiddenAddress
		}
		return true, ReasonNone
	}
	return p.checkHost(foldHost(host))
}

// checkHost checks a host that is not in brackets, already folded to lower case.
func (p Policy) checkHost(host string) (bool, Reason) {
	if host == "" {
		return false, ReasonNotHTTPS
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))) {
			return false, ReasonNotHTTPS
		}
	}
	if endsInNumber(host) {
		a, ok := parseIPv4(strings.TrimSuffix(host, "."))
		if !ok || strings.HasSuffix(host, ".") || !p.AddrAllowed(a) {
			return false, ReasonForbiddenAddress
		}
		return true, ReasonNone
	}
	if strings.HasSuffix(host, ".") {
		return false, ReasonForbiddenAddress
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return false, ReasonNotHTTPS
		}
	}
	if len(labels) == 1 && host != "localhost" {
		return false, ReasonForbiddenAddress
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		if p.loopbackAllowed() {
			return true, ReasonNone
		}
		return false, ReasonForbiddenAddress
	}
	for _, d := range localDomains {
		if strings.HasSuffix(host, "."+d) {
			return false, ReasonForbiddenAddress
		}
	}
	return true, ReasonNone
}

// localDomains are suffixes that never name a public receiver: special-use names (RFC 6761,
// RFC 6762, RFC 7686, RFC 8375), ICANN's private-use .internal, and names in common private use.
var localDomains = []string{
	"local", "internal", "localdomain", "home.arpa", "lan", "home", "corp", "intranet",
	"test", "invalid", "onion",
}

// loopbackAllowed reports whether a localhost name may be used: the allow-list holds the
// addresses localhost resolves to.
func (p Policy) loopbackAllowed() bool {
	return p.allowListed(netip.AddrFrom4([4]byte{127, 0, 0, 1})) || p.allowListed(netip.IPv6Loopback())
}

// utf16Len counts UTF-16 code units, as .NET's string length does.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// foldHost lowers the case of a host and folds the characters an IDNA (UTS #46) mapping turns
// into ASCII host syntax: full-width forms (U+FF01 to U+FF5E) and the ideographic and
// full-width full stops.
func foldHost(h string) string {
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(h)
	}
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == '\u3002' || r == '\uff0e' || r == '\uff61':
			r = '.'
		case r >= '\uff01' && r <= '\uff5e':
			r -= 0xfee0
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// endsInNumber reports whether the last label of host (ignoring one trailing dot) is a number
// in the sense of IPv4 parsing (decimal digits, or 0x and hex digits): such a host is read as
// an IPv4 address by URL parsers and resolvers, or is invalid.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		return isHex(last[2:])
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// parseIPv4 reads an IPv4 address the way inet_aton and URL parsers do: one to four parts
// separated by dots, each decimal, hex (0x, possibly with no digits, meaning 0) or octal
// (leading 0); the last part fills the remaining bytes (a: 32 bits; a.b: 8.24; a.b.c: 8.8.16).
func parseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, part := range parts {
		v, ok := parseIPv4Part(part)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	for _, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n := last
	for i, v := range vals[:len(vals)-1] {
		n |= v << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// parseIPv4Part reads one part, refusing values over 32 bits.
func parseIPv4Part(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	// Leading zeros cannot overflow; strip them so long runs of zeros still parse.
	p = strings.TrimLeft(p, "0")
	if p == "" {
		return 0, true
	}
	v, err := strconv.ParseUint(p, base, 64)
	if err != nil || v > 0xffffffff {
		return 0, false
	}
	return v, true
}
