// Package paramcheck holds one test that keeps a rule of the code base: an
// exported function or method takes at most four arguments (counting ctx);
// one that needs more takes a parameter struct whose fields say what each
// argument is. The test walks the module's non-test .go files with
// go/parser, so it needs no build and runs in well under a second.
package paramcheck
