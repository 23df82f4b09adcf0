package apicheck

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Module is the module path whose packages are rendered.
const Module = "github.com/schedkit/schedkit"

// PublicDirs returns the slash-separated directories, relative to root,
// of the module's public packages ("." for the root package), sorted.
func PublicDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if rel != "." {
			if name == "internal" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				dirs = append(dirs, rel)
				break
			}
		}
		return nil
	})
	slices.Sort(dirs)
	return dirs, err
}

// loader type-checks the module's packages from source (the module's own
// packages, internal ones included, are parsed here; the standard library
// and other modules come from the source importer).
type loader struct {
	root string
	fset *token.FileSet
	std  types.Importer
	pkgs map[string]*types.Package
}

func newLoader(root string) *loader {
	fset := token.NewFileSet()
	return &loader{root: root, fset: fset, std: importer.ForCompiler(fset, "source", nil), pkgs: map[string]*types.Package{}}
}

// Import implements types.Importer.
func (l *loader) Import(p string) (*types.Package, error) {
	if p != Module && !strings.HasPrefix(p, Module+"/") {
		return l.std.Import(p)
	}
	if pkg, ok := l.pkgs[p]; ok {
		return pkg, nil
	}
	dir := filepath.Join(l.root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, Module), "/")))
	bp, err := build.Default.ImportDir(dir, 0) // the files the go command builds
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(l.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: l}
	pkg, err := conf.Check(p, l.fset, files, nil)
	if err != nil {
		return nil, err
	}
	l.pkgs[p] = pkg
	return pkg, nil
}

// Render returns the API of the public packages under root, one line per
// exported identifier, sorted, each ending in a newline.
func Render(root string) (string, error) {
	dirs, err := PublicDirs(root)
	if err != nil {
		return "", err
	}
	l := newLoader(root)
	var lines []string
	for _, d := range dirs {
		p := Module
		if d != "." {
			p = path.Join(Module, d)
		}
		pkg, err := l.Import(p)
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		lines = append(lines, renderPackage(pkg)...)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return strings.Join(lines, "\n") + "\n", nil
}

// renderPackage returns the lines of one package.
func renderPackage(pkg *types.Package) []string {
	qual := func(other *types.Package) string {
		if other == pkg {
			return ""
		}
		return other.Name()
	}
	ts := func(t types.Type) string { return types.TypeString(t, qual) }
	prefix := "pkg " + pkg.Path() + ", "
	var out []string
	emit := func(format string, args ...any) { out = append(out, prefix+fmt.Sprintf(format, args...)) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.Const:
			emit("const %s %s = %s", name, ts(o.Type()), o.Val().ExactString())
		case *types.Var:
			emit("var %s %s", name, ts(unnamed(o.Type())))
		case *types.Func:
			sig := o.Type().(*types.Signature)
			emit("func %s%s%s", name, typeParams(sig.TypeParams(), qual), signature(sig, qual))
		case *types.TypeName:
			out = append(out, renderType(prefix, o, qual)...)
		}
	}
	return out
}

// signature renders sig's parameters and results by type only: a
// parameter's name is not part of the API.
func signature(sig *types.Signature, qual types.Qualifier) string {
	return strings.TrimPrefix(types.TypeString(unnamed(sig), qual), "func")
}

// unnamed returns t with the parameter and result names of every
// function type in it (a func-typed parameter's own, too) left out.
func unnamed(t types.Type) types.Type {
	tuple := func(tp *types.Tuple) *types.Tuple {
		vs := make([]*types.Var, tp.Len())
		for i := range tp.Len() {
			vs[i] = types.NewParam(0, nil, "", unnamed(tp.At(i).Type()))
		}
		return types.NewTuple(vs...)
	}
	switch t := t.(type) {
	case *types.Signature:
		return types.NewSignatureType(nil, nil, nil, tuple(t.Params()), tuple(t.Results()), t.Variadic())
	case *types.Slice:
		return types.NewSlice(unnamed(t.Elem()))
	case *types.Array:
		return types.NewArray(unnamed(t.Elem()), t.Len())
	case *types.Pointer:
		return types.NewPointer(unnamed(t.Elem()))
	case *types.Map:
		return types.NewMap(unnamed(t.Key()), unnamed(t.Elem()))
	case *types.Chan:
		return types.NewChan(t.Dir(), unnamed(t.Elem()))
	}
	return t // named and basic types print by name
}

func typeParams(tp *types.TypeParamList, qual types.Qualifier) string {
	if tp == nil || tp.Len() == 0 {
		return ""
	}
	parts := make([]string, tp.Len())
	for i := range tp.Len() {
		p := tp.At(i)
		parts[i] = p.Obj().Name() + " " + types.TypeString(p.Constraint(), qual)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// renderType returns the lines of one exported type: its kind, its
// exported fields or interface methods, and its exported methods
// (promoted ones included) with their receivers.
func renderType(prefix string, o *types.TypeName, qual types.Qualifier) []string {
	ts := func(t types.Type) string { return types.TypeString(t, qual) }
	name := o.Name()
	var out []string
	emit := func(format string, args ...any) { out = append(out, prefix+fmt.Sprintf(format, args...)) }
	if o.IsAlias() {
		emit("type %s = %s", name, ts(types.Unalias(o.Type())))
		return out
	}
	named, ok := o.Type().(*types.Named)
	if !ok {
		emit("type %s %s", name, ts(o.Type()))
		return out
	}
	tparams := typeParams(named.TypeParams(), qual)
	switch u := named.Underlying().(type) {
	case *types.Struct:
		emit("type %s%s struct", name, tparams)
		for i := range u.NumFields() {
			f := u.Field(i)
			if !f.Exported() {
				continue
			}
			if f.Embedded() {
				emit("type %s struct, embedded %s", name, ts(f.Type()))
			} else {
				emit("type %s struct, %s %s", name, f.Name(), ts(unnamed(f.Type())))
			}
		}
	case *types.Interface:
		emit("type %s%s interface", name, tparams)
		for i := range u.NumEmbeddeds() {
			emit("type %s interface, embedded %s", name, ts(u.EmbeddedType(i)))
		}
		for i := range u.NumMethods() {
			m := u.Method(i)
			if m.Exported() {
				emit("type %s interface, %s%s", name, m.Name(), signature(m.Type().(*types.Signature), qual))
			}
		}
		return out
	default:
		emit("type %s%s %s", name, tparams, ts(unnamed(u)))
	}
	// Methods of T and *T, promoted ones included.
	ms := types.NewMethodSet(types.NewPointer(named))
	for i := range ms.Len() {
		sel := ms.At(i)
		m := sel.Obj().(*types.Func)
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		recv := name
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr && len(sel.Index()) == 1 {
			recv = "*" + name
		}
		emit("method (%s) %s%s", recv, m.Name(), signature(sig, qual))
	}
	return out
}
