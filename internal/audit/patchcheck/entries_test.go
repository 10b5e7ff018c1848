package patchcheck

import (
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestLiteralEntries: the lines the entry rule applies to (a dict, list
// or Java array literal assigned to a name) and those it does not (calls,
// comparisons, expressions after the literal), with the entries split at
// top-level commas only.
func TestLiteralEntries(t *testing.T) {
	for line, want := range map[string]string{
		`known = { "exp" : "Exp" , "max" : [ ( lambda * x : True , "Max" ) ] , }`: `known = {|"exp" : "Exp"|"max" : [ ( lambda * x : True , "Max" ) ]`,
		`NAMES = [ "a, b" , 'c' ]`:                  `NAMES = [|"a, b"|'c'`,
		`String [ ] KEYS = { "x" , f ( 1 , 2 ) } ;`: `String [ ] KEYS = {|"x"|f ( 1 , 2 )`,
		`x = f ( a , b )`:                           ``,
		`if x == { 1 , 2 } :`:                       ``,
		`xs = [ 1 , 2 ] + ys`:                       ``,
		`total = { }`:                               `total = {`,
	} {
		target, entries, ok := literalEntries(line)
		got := ""
		if ok {
			got = strings.Join(append([]string{target}, entries...), "|")
		}
		testcheck.Eq(t, line, got, want)
	}
}

// TestAddedEntries: the fix's entries are those the buggy literal of the
// same name lacks; another name, or no entry added, is no pair.
func TestAddedEntries(t *testing.T) {
	target, added, ok := addedEntries(`t = { "a" : 1 , "max" : 2 , "min" : 3 }`, `t = { "a" : 1 }`)
	testcheck.Eq(t, "pair", ok, true)
	testcheck.Eq(t, "target", target, "t = {")
	testcheck.Eq(t, "added", strings.Join(added, "|"), `"max" : 2|"min" : 3`)
	if _, _, ok := addedEntries(`u = { "a" : 1 , "b" : 2 }`, `t = { "a" : 1 }`); ok {
		t.Errorf("literals of two names paired")
	}
	if _, _, ok := addedEntries(`t = { "a" : 1 }`, `t = { "a" : 1 , "b" : 2 }`); ok {
		t.Errorf("a fix that only removes entries paired")
	}
}
