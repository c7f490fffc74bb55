// Package web renders the dashboard (package dashboard's Page) as one
// self-contained HTML page, and serves it live: 'guard report --format
// html' and 'guard serve'. It is linked into guard-web only: net/http and
// html/template would cost every guard call their start-up.
//
// The page is built with html/template and inline SVG, and has no
// external script, style, font or image: it opens from disk with the
// network off. Its Content-Security-Policy allows only its own style and
// scripts (by hash), so markup that a key or an error smuggled in could
// not run even if it escaped escaping. It reads the same without
// JavaScript; its script sorts and filters, and on the served page a
// second one fetches what changed.
package web
