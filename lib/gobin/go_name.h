/* SPDX-License-Identifier: MIT */
/*
 * How gc names an instantiation of a generic function: its type arguments
 * in brackets after the function's or the receiver type's name,
 * main.Sum[go.shape.int], main.(*Box[go.shape.int]).Get,
 * main.Sum[go.shape.int].func1, main.Map[go.shape.string,go.shape.[]int].
 * A shape instantiation serves every type argument of one shape; which
 * one a call has is in the dictionary it is passed, whose symbol names
 * them: main..dict.Show[main.ID] (gc writes the types the body needs in
 * it, not always the arguments, so the name is what tells them).
 */
#ifndef GOTOOLS_GO_NAME_H
#define GOTOOLS_GO_NAME_H

#include <stdbool.h>
#include <stddef.h>

/*
 * S in NAME, past the type arguments that open at S if any: to the ']'
 * that closes them, through nested brackets (go.shape.[]int) and quoted
 * struct tags, which may hold any bracket (go.shape.struct { A int
 * "json:\"a]\"" }). Such a list opens with a '[' right after an
 * identifier: the '[' of type:.eq.[2]string follows a '.' and is part of
 * a type. A list that is never closed runs to the end of NAME. S itself
 * when no list opens there.
 */
const char *go_name__skip_type_args(const char *name, const char *s);

/*
 * The index, among the type parameters of the instantiation NAME, of the
 * one whose shape type is SHAPE ("go.shape.int64", DWARF's name of a
 * value's type in it), into *INDEX: where NAME's list spells it, else, as
 * Go 1.18 and 1.19 name their instantiations F[...] in pclntab, the number
 * those give their shapes (go.shape.int64_1: the second). Returns 0, -ENOENT
 * when SHAPE is no type parameter of NAME, or -EEXIST when two type
 * parameters have that shape (which one a value has is not known).
 */
int go_name__type_param(const char *name, const char *shape, size_t *index);

/*
 * Type argument INDEX of the instantiation NAME into BUF (SIZE bytes, cut
 * to fit): as %T spells it, each qualified name's package path cut to its
 * last element (main..dict.Show[github.com/x/y.ID] gives y.ID), or as gc
 * names the type (github.com/x/y.ID) when FULL. Returns 0, or -ENOENT when
 * NAME has no such argument.
 */
int go_name__type_arg(const char *name, size_t index, bool full, char *buf,
		      size_t size);

#endif
