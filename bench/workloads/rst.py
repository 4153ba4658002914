# SPDX-License-Identifier: GPL-2.0-only
"""docutils rendering reStructuredText to HTML (pyperf-run bench, table i).

    python rst.py SECTIONS

A real program from Debian (python3-docutils; other interpreters find it
through PYTHONPATH=/usr/lib/python3/dist-packages): a document of
SECTIONS sections, each with a table, a list, literal blocks and inline
markup, published to HTML.
"""
import sys

from docutils.core import publish_string

SECTION = """
Section %(n)d
=============

Some *emphasis*, **strong** text, ``literals`` and a reference to
`Section %(n)d`_ in a paragraph that goes on for a while, so that the
inliner has real work: footnote [#]_ and a link to https://example.org.

.. [#] A footnote of section %(n)d.

- item one with *markup*
- item two

  - nested item

+--------+--------+
| a %(n)d  | b      |
+========+========+
| 1      | 2      |
+--------+--------+

::

    literal block %(n)d
    with two lines

"""


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    text = "Title\n#####\n" + "".join(SECTION % {"n": i} for i in range(n))
    out = publish_string(text, writer_name="html",
                         settings_overrides={"report_level": 5})
    return len(out)


main()
