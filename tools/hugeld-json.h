/* hugeld: JSON strings for the helpers' output.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef HUGELD_JSON_H
#define HUGELD_JSON_H 1

#include <stddef.h>
#include <stdio.h>

/* Print the LEN bytes at S as a JSON string: quotes and backslashes
   escaped, control characters as \uXXXX, other bytes as they are.  */
static inline void
json_strn (const char *s, size_t len)
{
  putchar ('"');
  for (size_t i = 0; i < len; ++i)
    {
      unsigned char c = s[i];
      if (c == '"' || c == '\\')
	printf ("\\%c", c);
      else if (c < 0x20 || c == 0x7f)
	printf ("\\u%04x", c);
      else
	putchar (c);
    }
  putchar ('"');
}

/* The same for the string S.  */
static inline void
json_string (const char *s)
{
  size_t len = 0;
  while (s[len] != '\0')
    ++len;
  json_strn (s, len);
}

#endif /* hugeld-json.h */
