package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// TestCommandStyle checks the one shape of a command (ARCHITECTURE.md): a function that builds
// a command with an Action of its own (a leaf) takes the run function (a cmdutil.RunFunc) and its
// Action hands the parsed options to it, so that parsing is tested apart from running. Groups
// (commands with Subcommands) and functions that only call such a constructor are not leaves.
func TestCommandStyle(t *testing.T) {
	root := testpaths.Repo("commands")
	leaves := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "cmdutil" || rel == "cmdtest" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !returnsCommand(fn) {
				continue
			}
			lit := commandLiteral(fn)
			if lit == nil || hasKey(lit, "Subcommands") || !hasKey(lit, "Action") {
				continue
			}
			leaves++
			where := fset.Position(fn.Pos())
			if !takesRunFunc(fn) {
				t.Errorf("%s:%d: %s builds a leaf command but takes no run function (cmdutil.RunFunc)", rel, where.Line, fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d leaf commands", leaves)
	if leaves < 50 {
		t.Fatalf("only %d leaf commands found: the walk missed the command tree", leaves)
	}
}

func returnsCommand(fn *ast.FuncDecl) bool {
	r := fn.Type.Results
	if r == nil || len(r.List) != 1 {
		return false
	}
	star, ok := r.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Command"
}

// commandLiteral is the &cli.Command{...} fn returns, if it returns one it builds itself.
func commandLiteral(fn *ast.FuncDecl) *ast.CompositeLit {
	var found *ast.CompositeLit
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return true
		}
		if u, ok := ret.Results[0].(*ast.UnaryExpr); ok && u.Op == token.AND {
			if cl, ok := u.X.(*ast.CompositeLit); ok {
				found = cl
			}
		}
		return true
	})
	return found
}

func hasKey(cl *ast.CompositeLit, key string) bool {
	for _, e := range cl.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == key {
				return true
			}
		}
	}
	return false
}

func takesRunFunc(fn *ast.FuncDecl) bool {
	for _, p := range fn.Type.Params.List {
		typ := p.Type
		if ix, ok := typ.(*ast.IndexExpr); ok {
			typ = ix.X
		}
		if sel, ok := typ.(*ast.SelectorExpr); ok && sel.Sel.Name == "RunFunc" {
			return true
		}
	}
	return false
}
