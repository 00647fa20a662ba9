/*
Copyright 2026 The Stagecoach Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package health

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// luaChunkName is the source name gopher-lua puts in front of runtime error positions
// ("script:5: attempt to ..."), which luaErrorMessage rewrites to "line 5: ...".
const luaChunkName = "script"

// compileLua parses and compiles script once per distinct source. The resulting FunctionProto
// is immutable and shared by every LState that runs it, as gopher-lua's README recommends for
// running one script in many states.
func compileLua(cache *Cache, check, script string) (*lua.FunctionProto, error) {
	key := cacheKey{kind: "lua", hash: sha256.Sum256([]byte(script))}
	v, err := cache.getOrCompile(key, func() (any, error) { return parseLua(script) })
	if err != nil {
		return nil, forCheck(err, check, "")
	}
	return v.(*lua.FunctionProto), nil
}

func parseLua(script string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(strings.NewReader(script), luaChunkName)
	if err != nil {
		return nil, luaSyntaxError(err)
	}
	if err := checkDefinesEvaluate(chunk, script); err != nil {
		return nil, err
	}
	proto, err := lua.Compile(chunk, luaChunkName)
	if err != nil {
		ce := &CompileError{Language: LanguageLua, Message: err.Error()}
		var le *lua.CompileError
		if errors.As(err, &le) {
			ce.Line = le.Line
			ce.Message = fmt.Sprintf("line %d: %s", le.Line, le.Message)
		}
		return nil, ce
	}
	return proto, nil
}

func luaSyntaxError(err error) *CompileError {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return &CompileError{Language: LanguageLua, Message: strings.TrimSpace(err.Error())}
	}
	if pe.Pos.Line == parse.EOF {
		return &CompileError{Language: LanguageLua, Message: "unexpected end of script (is an end missing?): " + pe.Message}
	}
	return &CompileError{
		Language: LanguageLua,
		Line:     pe.Pos.Line,
		Message:  fmt.Sprintf("line %d, column %d, near %q: %s", pe.Pos.Line, pe.Pos.Column, pe.Token, pe.Message),
	}
}

// checkDefinesEvaluate rejects, at compile time, scripts that certainly define no global
// function evaluate, so that the mistake is reported once as a CompileError rather than on
// every object. Scripts that define it in ways this walk does not follow (say, through
// rawset(_G, ...)) are left to the check at run time.
func checkDefinesEvaluate(chunk []ast.Stmt, script string) error {
	global, local := findEvaluate(chunk)
	switch {
	case global:
		return nil
	case local:
		return &CompileError{Language: LanguageLua, Message: "evaluate is declared local, so it cannot be called: define it as a global, `function evaluate(obj) ... end`"}
	case !strings.Contains(script, "evaluate"):
		return &CompileError{Language: LanguageLua, Message: "the script defines no function evaluate: it must define `function evaluate(obj) ... end` returning {healthy = bool, message = string}"}
	}
	return nil
}

// findEvaluate walks statement blocks, function bodies included, looking for a definition of
// evaluate.
func findEvaluate(stmts []ast.Stmt) (global, local bool) {
	for _, stmt := range stmts {
		var nested [][]ast.Stmt
		switch s := stmt.(type) {
		case *ast.FuncDefStmt:
			if s.Name.Receiver == nil && isEvaluateTarget(s.Name.Func) {
				global = true
			}
			nested = append(nested, s.Func.Stmts)
		case *ast.AssignStmt:
			for _, lhs := range s.Lhs {
				global = global || isEvaluateTarget(lhs)
			}
		case *ast.LocalAssignStmt:
			for _, name := range s.Names {
				local = local || name == "evaluate"
			}
		case *ast.DoBlockStmt:
			nested = append(nested, s.Stmts)
		case *ast.IfStmt:
			nested = append(nested, s.Then, s.Else)
		case *ast.WhileStmt:
			nested = append(nested, s.Stmts)
		case *ast.RepeatStmt:
			nested = append(nested, s.Stmts)
		case *ast.NumberForStmt:
			nested = append(nested, s.Stmts)
		case *ast.GenericForStmt:
			nested = append(nested, s.Stmts)
		}
		for _, block := range nested {
			g, l := findEvaluate(block)
			global, local = global || g, local || l
		}
	}
	return global, local
}

// isEvaluateTarget reports whether e names the global evaluate: `evaluate` or `_G.evaluate`.
func isEvaluateTarget(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.IdentExpr:
		return x.Value == "evaluate"
	case *ast.AttrGetExpr:
		obj, ok := x.Object.(*ast.IdentExpr)
		key, isString := x.Key.(*ast.StringExpr)
		return ok && obj.Value == "_G" && isString && key.Value == "evaluate"
	}
	return false
}

// forCheck returns a copy of a cached *CompileError naming check and rule: cached errors are
// shared by every check with the same source, so they are stored without a name.
func forCheck(err error, check, rule string) error {
	var ce *CompileError
	if !errors.As(err, &ce) {
		return err
	}
	c := *ce
	c.Check, c.Rule = check, rule
	return &c
}
