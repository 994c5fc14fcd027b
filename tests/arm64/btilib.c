/* hugeld check-arm64: libbti.so, a BTI object with code on huge pages
   (bti.h).  Linked with -nostartfiles: Debian 12's crti.o and
   crtbeginS.o have no BTI property note, and one input without it
   leaves the library unmarked.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */
#include "bti.h"

BTI_CODE (lib);
