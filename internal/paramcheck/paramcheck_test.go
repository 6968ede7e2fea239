package paramcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MaxParams is the most arguments an exported function or method takes.
const MaxParams = 4

func TestExportedFuncsTakeAtMostFourParams(t *testing.T) {
	root := moduleRoot(t)
	offenders, err := Offenders(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offenders {
		t.Errorf("%s:%d: %s takes %d arguments (more than %d): give it a parameter struct", o.File, o.Line, o.Name, o.Params, MaxParams)
	}
}

// TestOffendersFindsEachKind proves the walk sees functions, methods and
// interface methods, counts grouped and unnamed parameters, and leaves
// unexported names and test files alone.
func TestOffendersFindsEachKind(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", `package a
import "context"
type T struct{}
type I interface {
	Many(ctx context.Context, a, b int, c string, d bool) error
	Few(ctx context.Context, a int) error
}
func Grouped(ctx context.Context, a, b, c, d int) {}
func Unnamed(int, string, bool, int, int) {}
func Four(ctx context.Context, a, b, c int) {}
func (T) Method(ctx context.Context, a, b, c, d int) {}
func (T) small(ctx context.Context, a, b, c, d int) {}
func unexported(ctx context.Context, a, b, c, d int) {}
`)
	write("a_test.go", `package a
func TestLong(a, b, c, d, e int) {}
`)
	got, err := Offenders(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range got {
		names = append(names, fmt.Sprintf("%s/%d", o.Name, o.Params))
	}
	if want := "Many/5 Grouped/5 Unnamed/5 Method/5"; strings.Join(names, " ") != want {
		t.Fatalf("offenders = %q, want %q", strings.Join(names, " "), want)
	}
}

// Offender is one exported function or method with too many arguments.
type Offender struct {
	File   string // slash-separated, relative to the root
	Line   int
	Name   string
	Params int
}

// Offenders lists, in file order, the exported functions, methods and
// interface methods of the non-test .go files under root (testdata, vendor
// and dot directories skipped) that take more than MaxParams arguments.
func Offenders(root string) ([]Offender, error) {
	var out []Offender
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil // a generator's API (clients/go) is not ours to shape
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		add := func(name *ast.Ident, ft *ast.FuncType) {
			if n := count(ft.Params); name.IsExported() && n > MaxParams {
				out = append(out, Offender{File: filepath.ToSlash(rel), Line: fset.Position(name.Pos()).Line, Name: name.Name, Params: n})
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncDecl:
				add(x.Name, x.Type)
			case *ast.InterfaceType:
				for _, m := range x.Methods.List {
					if ft, ok := m.Type.(*ast.FuncType); ok && len(m.Names) == 1 {
						add(m.Names[0], ft)
					}
				}
			}
			return true
		})
		return nil
	})
	return out, err
}

// count is the number of parameters in fl: a, b int is two, an unnamed int one.
func count(fl *ast.FieldList) int {
	n := 0
	for _, f := range fl.List {
		n += max(1, len(f.Names))
	}
	return n
}

// moduleRoot is the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
