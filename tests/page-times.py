#!/usr/bin/env python3
"""page-times.py PAGE...: exit 1, naming each, when a page of tracesim's
report prints a time other than as "N s", "N ms", "N us" or "N ns" with
1 <= N < 1000 and at most three significant digits ("0 s" for zero;
from 1000 s on, whole seconds: there is no larger unit), or
a number in exponent form ("1.0138e-05"), "0.000..." or a number of 4
decimals or more (a time printed without its unit) anywhere in what a
reader sees (text and tooltips; the script, the style and the user's own
hypothesis files, in <pre>, are not read).
The standard library only."""
import html
import re
import sys

TIME = re.compile(r"(?<![\w.])(-?[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?)\s?(s|ms|us|ns)\b")
BAD = [(re.compile(r"[0-9][eE][-+]?[0-9]"), "a number in exponent form"),
       (re.compile(r"(?<![0-9])0\.000"), "0.000..."),
       # A table's "0.800110" under a "(s)" heading: a time without its unit.
       (re.compile(r"(?<![\w.])[0-9]+\.[0-9]{4,}(?![\w.])"), "a number of 4 decimals or more")]


def visible(page):
    page = re.sub(r"(?s)<script.*?</script>|<style.*?</style>|<pre>.*?</pre>|<!--.*?-->", " ", page)
    # Data URIs (embedded plots) are no text.
    page = re.sub(r'src="data:[^"]*"', " ", page)
    return html.unescape(re.sub(r"<[^>]*>", " ", page))


def wrong(number, unit):
    if re.search(r"[eE]", number):
        return "exponent"
    value = abs(float(number))
    if unit == "s" and value >= 1000:
        return None if re.fullmatch(r"-?[1-9][0-9]{3,}", number) else "not whole seconds from 1000 s"
    if value == 0:
        return None if re.fullmatch(r"-?0", number) else "zero written as " + number
    if not 1 <= value < 1000:
        return "not 1 <= N < 1000"
    digits = re.sub(r"^0+", "", number.lstrip("-").replace(".", ""))
    if "." in number:
        digits = number.lstrip("-").replace(".", "").lstrip("0")
    else:
        digits = digits.rstrip("0") or "0"
    return "more than 3 significant digits" if len(digits) > 3 else None


def main():
    failed = 0
    for path in sys.argv[1:]:
        text = visible(open(path, encoding="utf-8").read())
        times = 0
        for m in TIME.finditer(text):
            times += 1
            why = wrong(m.group(1), m.group(2))
            if why:
                failed += 1
                print("%s: '%s %s': %s" % (path, m.group(1), m.group(2), why))
        for regex, what in BAD:
            for m in regex.finditer(text):
                failed += 1
                print("%s: '...%s...': %s" % (path, text[max(0, m.start() - 20):m.end() + 20].strip(), what))
        print("%s: %d times checked" % (path, times))
    sys.exit(1 if failed else 0)


main()
