/* hugeld: the helpers' one JSON emitter.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdlib.h>
#include <string.h>

#include "hugeld-json.h"

static void __attribute__ ((noreturn))
json_misuse (const char *what)
{
  fprintf (stderr, "hugeld: internal error: JSON document: %s\n", what);
  abort ();
}

void
json_start (struct json *j, FILE *out)
{
  memset (j, 0, sizeof *j);
  j->out = out;
}

/* Before a value: the separator from the value before it, and the
   checks that it has its place.  */
static void
json_value (struct json *j)
{
  if (j->depth > 0 && j->close[j->depth - 1] == '}' && !j->keyed)
    json_misuse ("a member without its key");
  if (j->depth > 0 && !j->keyed && j->more[j->depth - 1])
    fputs (", ", j->out);
  if (j->depth > 0)
    j->more[j->depth - 1] = true;
  j->keyed = false;
}

/* After a number, a boolean, null or a string: a document of that one
   value ends with it.  */
static void
json_scalar_done (struct json *j)
{
  if (j->depth == 0)
    putc ('\n', j->out);
}

static void
json_open (struct json *j, char open, char close)
{
  json_value (j);
  if (j->depth == JSON_DEPTH_MAX)
    json_misuse ("too deep");
  putc (open, j->out);
  j->close[j->depth] = close;
  j->more[j->depth++] = false;
}

void
json_object (struct json *j)
{
  json_open (j, '{', '}');
}

void
json_array (struct json *j)
{
  json_open (j, '[', ']');
}

void
json_end (struct json *j)
{
  if (j->depth == 0 || j->keyed)
    json_misuse (j->keyed ? "a key without its value" : "an end too many");
  putc (j->close[--j->depth], j->out);
  if (j->depth == 0)
    putc ('\n', j->out);
}

/* S (LEN bytes) quoted and escaped, on OUT.  */
static void
json_quoted (FILE *out, const char *s, size_t len)
{
  putc ('"', out);
  for (size_t i = 0; i < len; ++i)
    {
      unsigned char c = s[i];
      if (c == '"' || c == '\\')
	fprintf (out, "\\%c", c);
      else if (c < 0x20 || c == 0x7f)
	fprintf (out, "\\u%04x", c);
      else
	putc (c, out);
    }
  putc ('"', out);
}

void
json_key (struct json *j, const char *key)
{
  if (j->depth == 0 || j->close[j->depth - 1] != '}' || j->keyed)
    json_misuse ("a key outside an object");
  if (j->more[j->depth - 1])
    fputs (", ", j->out);
  json_quoted (j->out, key, strlen (key));
  fputs (": ", j->out);
  j->keyed = true;
}

void
json_strn (struct json *j, const char *s, size_t len)
{
  json_value (j);
  json_quoted (j->out, s, len);
  json_scalar_done (j);
}

void
json_str (struct json *j, const char *s)
{
  if (s == NULL)
    json_null (j);
  else
    json_strn (j, s, strlen (s));
}

void
json_uint (struct json *j, unsigned long long int v)
{
  json_value (j);
  fprintf (j->out, "%llu", v);
  json_scalar_done (j);
}

void
json_int (struct json *j, long long int v)
{
  json_value (j);
  fprintf (j->out, "%lld", v);
  json_scalar_done (j);
}

void
json_bool (struct json *j, bool v)
{
  json_value (j);
  fputs (v ? "true" : "false", j->out);
  json_scalar_done (j);
}

void
json_null (struct json *j)
{
  json_value (j);
  fputs ("null", j->out);
  json_scalar_done (j);
}

void
json_kstr (struct json *j, const char *key, const char *s)
{
  json_key (j, key);
  json_str (j, s);
}

void
json_kstrn (struct json *j, const char *key, const char *s, size_t len)
{
  json_key (j, key);
  json_strn (j, s, len);
}

void
json_kuint (struct json *j, const char *key, unsigned long long int v)
{
  json_key (j, key);
  json_uint (j, v);
}

void
json_kint (struct json *j, const char *key, long long int v)
{
  json_key (j, key);
  json_int (j, v);
}

void
json_kbool (struct json *j, const char *key, bool v)
{
  json_key (j, key);
  json_bool (j, v);
}

void
json_knull (struct json *j, const char *key)
{
  json_key (j, key);
  json_null (j);
}
