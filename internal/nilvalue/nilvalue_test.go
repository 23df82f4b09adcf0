package nilvalue

import "testing"

type job struct{}

func (*job) ID() string { return "j" }

func TestIs(t *testing.T) {
	var p *job
	var m map[int]int
	var f func()
	var iface interface{ ID() string } = p
	tests := []struct {
		name string
		v    any
		want bool
		text string
	}{
		{"untyped nil", nil, true, "nil job"},
		{"typed nil pointer", p, true, "nil job (a typed nil *nilvalue.job)"},
		{"typed nil in an interface", iface, true, "nil job (a typed nil *nilvalue.job)"},
		{"nil map", m, true, "nil job (a typed nil map[int]int)"},
		{"nil func", f, true, "nil job (a typed nil func())"},
		{"value", &job{}, false, ""},
		{"non-pointer", 3, false, ""},
	}
	for _, tt := range tests {
		if got := Is(tt.v); got != tt.want {
			t.Errorf("%s: Is = %v, want %v", tt.name, got, tt.want)
		}
		if tt.want {
			if got := Text("job", tt.v); got != tt.text {
				t.Errorf("%s: Text = %q, want %q", tt.name, got, tt.text)
			}
		}
	}
}
