// Package apicheck keeps the exported API of every public schedkit
// package in one golden file, api/schedkit.txt at the module root, one
// line per exported identifier with its signature (the format of Go's own
// api/ files), so that every exported change is deliberate and shows in
// review. TestAPI renders the API with go/types and fails with a diff
// when it differs from the file; after a deliberate change, regenerate
// the file with
//
//	go test ./internal/apicheck -update
//
// A public package is any directory of the module, outside internal/ and
// testdata/ and other modules (internal/kube), that holds a non-test Go
// file, so a new package is checked from its first commit.
package apicheck
