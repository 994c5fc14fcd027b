/* hugeld: the helpers' one JSON emitter.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef HUGELD_JSON_H
#define HUGELD_JSON_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* How deep documents nest.  */
#define JSON_DEPTH_MAX 16

/* A document being written to OUT: the writer puts the separators
   (", " between members and elements, ": " after a key), escapes the
   strings, and ends the document with a newline (after its outermost
   object or array, or after its one value).  A key goes before
   each value inside an object, none inside an array; a document is
   one value, usually an object.  Misuse (a value without its key, an
   end without a start, too deep) aborts: it is a bug of the helper,
   and half a document is worse than none.  */
struct json
{
  FILE *out;
  int depth;
  /* For each open object or array: its closing bracket, and whether it
     has an element already.  */
  char close[JSON_DEPTH_MAX];
  bool more[JSON_DEPTH_MAX];
  /* A key was written: its value follows, without a separator.  */
  bool keyed;
};

/* Start a document on OUT.  */
void json_start (struct json *j, FILE *out);

/* Open an object or an array (as the value of the last key, or an
   element), and close the innermost one; closing the outermost one
   ends the document with a newline.  */
void json_object (struct json *j);
void json_array (struct json *j);
void json_end (struct json *j);

/* The key of the next member of the object being written.  */
void json_key (struct json *j, const char *key);

/* Values: a string (null for NULL), LEN bytes as a string, numbers,
   booleans, null.  Strings are escaped as JSON needs (quotes,
   backslashes, control characters); other bytes go as they are.  */
void json_str (struct json *j, const char *s);
void json_strn (struct json *j, const char *s, size_t len);
void json_uint (struct json *j, unsigned long long int v);
void json_int (struct json *j, long long int v);
void json_bool (struct json *j, bool v);
void json_null (struct json *j);

/* Members: the key and its value in one call.  */
void json_kstr (struct json *j, const char *key, const char *s);
void json_kstrn (struct json *j, const char *key, const char *s,
		 size_t len);
void json_kuint (struct json *j, const char *key, unsigned long long int v);
void json_kint (struct json *j, const char *key, long long int v);
void json_kbool (struct json *j, const char *key, bool v);
void json_knull (struct json *j, const char *key);

#endif /* hugeld-json.h */
