# The environment every test starts from; sourced by tests/lib.sh (a
# test run alone) and tests/run.sh (every test it runs).  None of the
# caller's variables that the loader under test reads stays: hugeld's
# ld.so is glibc's, so that is every LD_* variable (hugeld's own
# LD_HUGEPAGE_LIBS, LD_HUGEPAGE_SEGMENTS and LD_HUGEPAGE_BACKING, which
# the hugeld command reads too; glibc's LD_DEBUG, LD_DEBUG_OUTPUT,
# LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, LD_BIND_NOW, ...) and
# GLIBC_TUNABLES.  A test gives what it checks to the command it runs.
for _v in $(compgen -e); do
  case $_v in LD_*|GLIBC_TUNABLES) unset "$_v" ;; esac
done
unset _v
