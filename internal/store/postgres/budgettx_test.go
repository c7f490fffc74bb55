package postgres

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"testing"

	"guard/internal/store"
)

// TestBudgetTxLoadsForEveryMethod: budgetTx embeds the document's
// store.BudgetTx and must read a service's row before each method uses it.
// A method of the interface it does not define itself would reach the
// document with the row unread, and see an empty budget.
func TestBudgetTxLoadsForEveryMethod(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "budgets.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "budgetTx" {
					own[fd.Name.Name] = true
				}
			}
		}
	}
	it := reflect.TypeFor[store.BudgetTx]()
	for i := range it.NumMethod() {
		if m := it.Method(i).Name; !own[m] {
			t.Errorf("budgetTx does not define %s: it would use the document without reading the service's row", m)
		}
	}
}
