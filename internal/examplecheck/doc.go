// Package examplecheck holds, in its test, the check that every Example
// of schedkit's public packages compiles when copied alone into a new
// module, as a reader copies it from the documentation: go/doc's
// playable version of each Example (the function as main, with the
// imports and the test file's declarations it uses) is written into a
// module of its own that requires schedkit, and vetted and built there.
// Examples in internal/ are left out: Go forbids another module to
// import an internal package.
package examplecheck
