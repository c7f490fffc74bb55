package postgres

import (
	"net"
	"net/url"
	"os"
	"strings"
)

// Advice returns what is worth a warning in how the state at rawURL is
// reached (store.Backend.Advice): a database on another host reached
// without verify-full, whose connection may go in the clear (sslmode
// prefer, the default, and allow, disable) or to a server it does not
// check (require, verify-ca). The fix is the same: sslmode=verify-full.
func Advice(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	mode := u.Query().Get("sslmode")
	if mode == "" {
		mode = os.Getenv("PGSSLMODE")
	}
	if mode == "" {
		mode = "prefer"
	}
	host := u.Query().Get("host")
	if host == "" {
		host = u.Hostname()
	}
	if host == "" {
		host = os.Getenv("PGHOST")
	}
	if local(host) || mode == "verify-full" {
		return nil
	}
	switch mode {
	case "prefer", "allow", "disable":
		return []string{"sslmode=" + mode + " reaches " + host + " in the clear when its server offers no TLS, and checks no certificate when it does: a password and every key may cross the network readable"}
	default:
		return []string{"sslmode=" + mode + " encrypts the connection to " + host + " but does not check that it is the right server"}
	}
}

// local reports whether host is this machine: a Unix socket or a loopback
// address.
func local(host string) bool {
	if host == "" || strings.HasPrefix(host, "/") || host == "localhost" {
		return true
	}
	for _, h := range strings.Split(host, ",") {
		ip := net.ParseIP(strings.Trim(h, "[]"))
		if ip == nil || !ip.IsLoopback() {
			return false
		}
	}
	return true
}
