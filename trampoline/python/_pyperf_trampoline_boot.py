# SPDX-License-Identifier: MIT
"""Glue of pyperf-run's embedded perf trampoline (CPython 3.8-3.13).

See trampoline/README.md.  Imported by our sitecustomize.py (PYTHONPATH)
or by pyperf_trampoline.pth (site-packages).  It installs
sys.activate_stack_trampoline() & co. where the interpreter lacks them
(3.8-3.11) and wraps the native ones on 3.12 and 3.13, and activates a
backend when -X perf, -X perf_jit, PYTHONPERFSUPPORT,
PYTHON_PERF_JIT_SUPPORT or PYPERF_TRAMPOLINE ask for it.

Whose trampoline: PYPERF_TRAMPOLINE=perf|jit (what pyperf-run sets when
it wants ours; it also activates that backend) or =embedded (ours, the
switches say which backend) makes the embedded one serve both backends,
on 3.12 and 3.13 too, the sys API included.  Otherwise (unset, or
=native) a backend the interpreter has itself (3.12: perf; 3.13: both)
stays CPython's own, so that -X perf and -X perf_jit keep meaning what
CPython says; only what it lacks is ours.
The C extension is only loaded when one of our backends is activated.
"""
import os
import sys

_EXT = "_pyperf_trampoline"
_ext = None
_native = None      # 3.12+: native (activate, deactivate, is_active)
_started = False
_VERSION = sys.version_info[:2]
_BACKENDS = ("perf", "perf_jit")


def _warn(msg):
    try:
        sys.stderr.write("pyperf-trampoline: %s\n" % msg)
        sys.stderr.flush()
    except Exception:
        pass


def _load():
    """Import the C extension built for this interpreter, next to us."""
    global _ext
    if _ext is not None:
        return _ext
    mod = sys.modules.get(_EXT)
    if mod is None:
        import _imp
        try:
            from _frozen_importlib_external import (
                ExtensionFileLoader, spec_from_file_location)
            from _frozen_importlib import module_from_spec
        except ImportError:
            from importlib.machinery import ExtensionFileLoader
            from importlib.util import (spec_from_file_location,
                                        module_from_spec)
        here = os.path.dirname(os.path.abspath(__file__))
        for suffix in _imp.extension_suffixes():
            path = os.path.join(here, _EXT + suffix)
            if os.path.exists(path):
                break
        else:
            raise ImportError("no %s built for Python %d.%d in '%s'"
                              % (_EXT, _VERSION[0], _VERSION[1], here),
                              name=_EXT)
        loader = ExtensionFileLoader(_EXT, path)
        spec = spec_from_file_location(_EXT, path, loader=loader)
        mod = module_from_spec(spec)
        sys.modules[_EXT] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[_EXT]
            raise
    _ext = mod
    return mod


def _forced():
    """PYPERF_TRAMPOLINE, the tool's override ("" when unset)."""
    return os.environ.get("PYPERF_TRAMPOLINE", "")


def _native_backends():
    """The backends this interpreter's own trampoline has."""
    if _VERSION >= (3, 13):
        return _BACKENDS
    if _VERSION == (3, 12):
        return ("perf",)
    return ()


def _ours_forced():
    """PYPERF_TRAMPOLINE asks for the embedded trampoline."""
    return _forced() in ("perf", "jit", "perf_jit", "embedded")


def _serves_natively(backend):
    """Whether backend goes to the interpreter's own trampoline: when it
    has that backend (3.12 has no perf_jit: that one is ours) and
    PYPERF_TRAMPOLINE does not ask for ours."""
    return (_native is not None and not _ours_forced() and
            backend in _native_backends())


def _check_args(name, args, kwargs, n):
    """The argument errors of a METH_O / METH_NOARGS builtin."""
    if kwargs:
        raise TypeError("sys.%s() takes no keyword arguments" % name)
    if len(args) != n:
        if n:
            raise TypeError("sys.%s() takes exactly one argument (%d given)"
                            % (name, len(args)))
        raise TypeError("sys.%s() takes no arguments (%d given)"
                        % (name, len(args)))


def activate_stack_trampoline(*args, **kwargs):
    """Activate the perf trampoline ("perf" or "perf_jit")."""
    _check_args("activate_stack_trampoline", args, kwargs, 1)
    backend = args[0]
    if not isinstance(backend, str):
        raise TypeError("activate_stack_trampoline() argument must be str,"
                        " not %s" % type(backend).__name__)
    if _serves_natively(backend):
        if _ext is not None:
            _ext.deactivate()
        return _native[0](backend)
    if backend not in _BACKENDS:
        raise ValueError("invalid backend: %s" % backend)
    # Only one PEP 523 hook at a time: switch from CPython's to ours.
    if _native is not None and _native[2]():
        _native[1]()
    _load().activate(backend)


def deactivate_stack_trampoline(*args, **kwargs):
    """Deactivate the perf trampoline (a no-op when inactive)."""
    _check_args("deactivate_stack_trampoline", args, kwargs, 0)
    if _ext is not None:
        _ext.deactivate()
    if _native is not None and _native[2]():
        _native[1]()


def is_stack_trampoline_active(*args, **kwargs):
    """Whether a perf trampoline is active."""
    _check_args("is_stack_trampoline_active", args, kwargs, 0)
    if _ext is not None and _ext.is_active():
        return True
    return bool(_native is not None and _native[2]())


def _int_env(name):
    v = os.environ.get(name)
    if not v:
        return 0
    try:
        return int(v)
    except ValueError:
        return 0


def requested_backend():
    """The backend the command line and environment ask for, or None.

    CPython 3.13's precedence (later wins): PYTHONPERFSUPPORT,
    PYTHON_PERF_JIT_SUPPORT, -X perf, -X perf_jit; then our own
    PYPERF_TRAMPOLINE (not a PYTHON* variable, so also read under -E).
    """
    backend = None
    if not sys.flags.ignore_environment:
        if _int_env("PYTHONPERFSUPPORT"):
            backend = "perf"
        if _int_env("PYTHON_PERF_JIT_SUPPORT"):
            backend = "perf_jit"
    xo = getattr(sys, "_xoptions", {})
    if "perf" in xo:
        backend = "perf"
    if "perf_jit" in xo:
        backend = "perf_jit"
    forced = _forced()
    if forced == "perf":
        backend = "perf"
    elif forced in ("jit", "perf_jit"):
        backend = "perf_jit"
    elif forced in ("off", "0", "none"):
        backend = None
    elif forced and forced not in ("native", "embedded"):
        _warn("ignoring PYPERF_TRAMPOLINE=%s (want perf, jit, embedded, "
              "native or off)" % forced)
    return backend


def _install_sys_api():
    global _native
    if _VERSION >= (3, 12):
        act = getattr(sys, "activate_stack_trampoline", None)
        if act is None or getattr(act, "__module__", None) == __name__:
            return
        _native = (act, sys.deactivate_stack_trampoline,
                   sys.is_stack_trampoline_active)
    for fn in (activate_stack_trampoline, deactivate_stack_trampoline,
               is_stack_trampoline_active):
        setattr(sys, fn.__name__, fn)


def start(how):
    """Entry point of sitecustomize.py and the .pth line (idempotent)."""
    global _started
    if _started:
        return
    _started = True
    if _VERSION < (3, 8):
        return
    backend = requested_backend()
    if _VERSION >= (3, 14):
        # Not supported yet (its frame layout changed): the interpreter's
        # own trampoline is left alone; a forced backend says why.
        if backend is not None and _ours_forced():
            _warn("cannot activate %s: Python %d.%d is not supported by "
                  "the embedded trampoline (3.8 to 3.13 are)"
                  % (backend, _VERSION[0], _VERSION[1]))
        return
    _install_sys_api()
    if backend is None:
        return
    if _serves_natively(backend):
        if not _native[2]():
            try:
                _native[0](backend)
            except Exception as e:
                _warn("cannot activate the native %s: %s" % (backend, e))
        return
    try:
        activate_stack_trampoline(backend)
    except Exception as e:
        _warn("cannot activate %s: %s" % (backend, e))
