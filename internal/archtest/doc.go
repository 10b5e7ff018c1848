// Package archtest holds no code: its tests enforce the package graph the
// design relies on (which stage may depend on which), so a convenient
// import cannot quietly undo a separation the papers' method needs.
package archtest
