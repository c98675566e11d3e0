"""plot_check.py SVG POLYLINES SIGNATURES [TEXT...]: the SVG `tracefuzz plot` wrote is
well-formed XML (xml.etree parses it), has POLYLINES series polylines of >= 2 points
each, one finding mark per signature in every panel, labelled axes, and every TEXT
somewhere in its text."""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
path, want_lines, want_sigs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
root = ET.parse(path).getroot()
assert root.tag == NS + "svg", root.tag
lines = root.findall(".//" + NS + "polyline")
assert len(lines) == want_lines, f"{len(lines)} polylines, want {want_lines}"
for pl in lines:
    pts = pl.get("points").split()
    assert len(pts) >= 2, f"a polyline of {len(pts)} points"
    for p in pts:
        x, y = map(float, p.split(","))
        assert 0 <= x <= float(root.get("width")) and 0 <= y <= float(root.get("height")), p
panels = root.findall(".//" + NS + "g[@class='panel']")
assert len(panels) == want_lines, f"{len(panels)} panels"
marks = root.findall(".//" + NS + "circle[@class='finding']")
assert len(marks) == want_sigs * len(panels), f"{len(marks)} finding marks"
text = " ".join("".join(t.itertext()) for t in root.iter(NS + "text"))
for want in ["time (s)", "execs/s", "corpus"] + sys.argv[4:]:
    assert want in text, f"no text {want!r} in {text!r}"
print(f"ok: {len(lines)} polylines, {len(marks)} finding marks")
