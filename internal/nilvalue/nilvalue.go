// Package nilvalue holds the one test every schedkit package applies to a
// host's values before calling their methods: nil, or an interface
// holding a nil pointer, map, slice, channel or function (a typed nil,
// whose methods would panic), and the words its errors use for one.
package nilvalue

import (
	"fmt"
	"reflect"
)

// Is reports whether v is nil or an interface holding a nil pointer,
// map, slice, channel, function or interface.
func Is(v any) bool {
	if v == nil {
		return true
	}
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return r.IsNil()
	}
	return false
}

// Text describes a nil host value: "nil job", or "nil job (a typed nil
// *main.job)".
func Text(what string, v any) string {
	if v == nil {
		return "nil " + what
	}
	return fmt.Sprintf("nil %s (a typed nil %T)", what, v)
}
