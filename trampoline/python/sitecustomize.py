# SPDX-License-Identifier: MIT
# sitecustomize.py - loader of pyperf-run's embedded perf trampoline.
# See trampoline/README.md.
#
# Our directory is first on PYTHONPATH, so `site` imports this file.  We
# load the trampoline glue (CPython 3.8+ only; anything else is left
# alone), take our directory off sys.path again, then run the user's own
# sitecustomize (the next one on sys.path) in our place.  usercustomize is
# left to `site`.  Kept parseable by Python 2.
import sys


def _pyperf_chain():
    import os
    here = os.path.dirname(os.path.abspath(__file__))

    def ours(p):
        try:
            return os.path.abspath(p or os.curdir) == here
        except Exception:
            return False

    sys.path[:] = [p for p in sys.path if not ours(p)]
    if sys.version_info >= (3, 8):
        boot = sys.modules.get("_pyperf_trampoline_boot")
        try:
            if boot is None:
                sys.path.insert(0, here)
                try:
                    import _pyperf_trampoline_boot as boot
                finally:
                    sys.path.remove(here)
            boot.start("sitecustomize")
        except Exception as e:
            sys.stderr.write("pyperf-trampoline: cannot load: %s\n" % (e,))
    # The user's sitecustomize, if any: exceptions propagate to site.py,
    # which reports them exactly as it would have.
    if sys.version_info >= (3, 5):
        # The frozen import machinery is already loaded: importing the
        # importlib package would cost milliseconds at every start.
        try:
            from _frozen_importlib_external import PathFinder
            from _frozen_importlib import module_from_spec
        except ImportError:
            from importlib.machinery import PathFinder
            from importlib.util import module_from_spec
        spec = PathFinder.find_spec("sitecustomize", sys.path)
        if spec is None or spec.loader is None:
            return
        mod = module_from_spec(spec)
        sys.modules["sitecustomize"] = mod
        spec.loader.exec_module(mod)
    else:
        import imp  # Python 2
        try:
            f, path, desc = imp.find_module("sitecustomize", sys.path)
        except ImportError:
            return
        try:
            del sys.modules["sitecustomize"]
            imp.load_module("sitecustomize", f, path, desc)
        finally:
            if f:
                f.close()


_pyperf_chain()
