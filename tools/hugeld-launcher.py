#!@PYTHON@ -IS
# hugeld: the command, as installed: this file and the package beside
# it (PACKAGES, relative to this file's real path), compiled to
# bytecode when it was installed (tools/Makefile).  -I: no PYTHON*
# variable, user site or current directory decides what runs; -S: no
# site packages (the package needs the standard library only), which
# also spares every start the reading of their .pth files.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                "@PACKAGES@"))
from hugeld.cli import main

sys.exit(main())
