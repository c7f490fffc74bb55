// Package view turns guard's state into what people and scripts read: the
// one model of a key's state every output shows (state.go: closed, open,
// half_open, forced_open, observe, disabled, and where a key stands against
// its rule), the status table and its JSON, the health report (text, JSON,
// Markdown, Prometheus), event descriptions, skip notices and budget lines.
// It reads the state through package store's interfaces, and escapes
// everything that comes from outside (keys, errors) in text output;
// Prometheus labels carry keys as they are, escaped once as the text
// format asks.
package view
