#!/usr/bin/python3
# count-opens.py FILE READY STOP: count the opens of FILE (inotify
# IN_OPEN) until the file STOP exists; print the count.  Creates READY
# once the watch is in place.  For t-policy's swap loop: a device node
# that ld.so must never open.
import ctypes
import os
import select
import struct
import sys
import time

IN_OPEN = 0x20
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
if fd < 0 or libc.inotify_add_watch(fd, sys.argv[1].encode(), IN_OPEN) < 0:
    sys.exit("count-opens: inotify: errno %d" % ctypes.get_errno())
open(sys.argv[2], "w").close()
opens = 0
deadline = time.monotonic() + 600


def drain():
    global opens
    while True:
        try:
            buf = os.read(fd, 65536)
        except BlockingIOError:
            return
        i = 0
        while i < len(buf):
            _, mask, _, length = struct.unpack_from("iIII", buf, i)
            if mask & IN_OPEN:
                opens += 1
            i += 16 + length


while not os.path.exists(sys.argv[3]) and time.monotonic() < deadline:
    select.select([fd], [], [], 0.1)
    drain()
drain()
print(opens)
