"""Stage 1: MOBILE_API.xml -> rpc_spec_digest.json (facts only, no descriptions).

The digest keeps, in spec order, every top-level enum, struct and function with the
attributes code generation and validation need. Entries inside <history> (earlier
shapes of an item) and commented-out items are not part of the current interface and
are left out. Text content (<description>, <todo>, <warning>) is never read.
"""

import re
import xml.etree.ElementTree as ET

_INT = re.compile(r"^-?\d+$")


def _number(text):
    """A numeric attribute as int when it is written as an integer, else float."""
    text = text.strip()
    if _INT.match(text):
        return int(text)
    return float(text)


def _bool(text):
    return text.strip().lower() == "true"


def _lifecycle(el, out):
    """since / until / deprecated, when present."""
    if el.get("since") is not None:
        out["since"] = el.get("since")
    if el.get("until") is not None:
        out["until"] = el.get("until")
    if el.get("deprecated") is not None:
        out["deprecated"] = _bool(el.get("deprecated"))
    return out


# Param attributes copied into the digest, in this order, with their converters.
_PARAM_ATTRS = [
    ("type", str),
    ("array", _bool),
    ("minsize", int),
    ("maxsize", int),
    ("minvalue", _number),
    ("maxvalue", _number),
    ("minlength", int),
    ("maxlength", int),
    ("mandatory", _bool),
    ("defvalue", str),
]


def _param(el):
    out = {"name": el.get("name")}
    for attr, convert in _PARAM_ATTRS:
        if el.get(attr) is not None:
            out[attr] = convert(el.get(attr))
    if "array" not in out:
        out["array"] = False
    _lifecycle(el, out)
    if el.get("platform") is not None:
        out["platform"] = el.get("platform")
    # A param of enum type may list the subset of the enum's elements it allows.
    allowed = [child.get("name") for child in el.findall("element")]
    if allowed:
        out["values"] = allowed
    return out


def _merge_params(owner, params):
    """Params that appear more than once (one per platform) become one entry.

    The merged param is mandatory only if every occurrence is; a limit is kept only if
    every occurrence has one, and then the loosest of them; `platform` lists all
    platforms. This keeps a value valid for any platform valid after merging.
    """
    merged = {}
    order = []
    for p in params:
        name = p["name"]
        if name not in merged:
            merged[name] = dict(p)
            order.append(name)
            continue
        m = merged[name]
        if m["type"] != p["type"] or m["array"] != p["array"]:
            raise SystemExit(f"{owner}.{name}: duplicate params disagree on type")
        m["mandatory"] = m.get("mandatory", False) and p.get("mandatory", False)
        for key, pick in (("minsize", min), ("minvalue", min), ("minlength", min),
                          ("maxsize", max), ("maxvalue", max), ("maxlength", max)):
            if key in m and key in p:
                m[key] = pick(m[key], p[key])
            else:
                m.pop(key, None)
        platforms = [x for x in (m.get("platform"), p.get("platform")) if x]
        if platforms:
            m["platform"] = ",".join(dict.fromkeys(",".join(platforms).split(",")))
        if "values" in m or "values" in p:
            if "values" in m and "values" in p:
                m["values"] = list(dict.fromkeys(m["values"] + p["values"]))
            else:
                m.pop("values", None)
    return [merged[n] for n in order]


def build_digest(xml_path):
    root = ET.parse(xml_path).getroot()
    if root.tag != "interface":
        raise SystemExit(f"{xml_path}: root element is <{root.tag}>, expected <interface>")

    enums = []
    function_ids = {}
    for el in root.findall("enum"):
        entry = _lifecycle(el, {"name": el.get("name")})
        if el.get("platform") is not None:
            entry["platform"] = el.get("platform")
        elements = []
        for child in el.findall("element"):
            e = {"name": child.get("name")}
            if child.get("value") is not None:
                e["value"] = int(child.get("value"))
            if child.get("hexvalue") is not None:
                e["hexvalue"] = child.get("hexvalue")
            _lifecycle(child, e)
            elements.append(e)
        entry["elements"] = elements
        enums.append(entry)
        if entry["name"] == "FunctionID":
            function_ids = {e["name"]: e["value"] for e in elements}
    if not function_ids:
        raise SystemExit("the spec has no FunctionID enum")

    structs = []
    for el in root.findall("struct"):
        entry = _lifecycle(el, {"name": el.get("name")})
        entry["params"] = _merge_params(entry["name"], [_param(p) for p in el.findall("param")])
        structs.append(entry)

    functions = []
    for el in root.findall("function"):
        id_name = el.get("functionID")
        if id_name not in function_ids:
            raise SystemExit(f"function {el.get('name')}: unknown functionID {id_name}")
        entry = {
            "name": el.get("name"),
            "messagetype": el.get("messagetype"),
            "functionID": function_ids[id_name],
            "functionIDName": id_name,
        }
        _lifecycle(el, entry)
        entry["params"] = _merge_params(entry["name"], [_param(p) for p in el.findall("param")])
        functions.append(entry)

    return {
        "interface": {
            "name": root.get("name"),
            "version": root.get("version"),
            "minVersion": root.get("minVersion"),
            "date": root.get("date"),
        },
        "source": "MOBILE_API.xml (SmartDeviceLink RPC spec, BSD licence); facts only, descriptions omitted",
        "enums": enums,
        "structs": structs,
        "functions": functions,
    }
