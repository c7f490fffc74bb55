// Package dashboard is what 'guard report --format html' and 'guard serve'
// show: a Model of every circuit, in the one state model every output
// shares (view.StateOf), its sparkline over a span scaled to its activity
// (the last hour to 7 days) with the calls not run by verdict, run times,
// budgets and hosts, built from a state through package store's
// interfaces, and kept up to date by Refresh at a cost that does not grow
// with the event log's age (the log is tailed: see store.Tailer). It holds
// the page's content as plain values; package web renders them as HTML
// and serves them.
//
// It links nothing that guard's start-up would pay for (no net/http, no
// html/template): cmd/guard/cli names its Source, and guard-web, which
// links package web, fills it.
package dashboard
