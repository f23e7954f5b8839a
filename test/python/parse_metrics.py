"""Reads Prometheus text exposition on stdin and prints its metric families as JSON, using prometheus_client's
parser (the Prometheus project's own). A malformed exposition raises, and the exit status says so."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def number(value):
    return None if math.isnan(value) else ("+Inf" if value == math.inf else value)


families = [
    {
        "name": family.name,
        "type": family.type,
        "help": family.documentation,
        "samples": [{"name": s.name, "labels": s.labels, "value": number(s.value)} for s in family.samples],
    }
    for family in text_string_to_metric_families(sys.stdin.read())
]
json.dump(families, sys.stdout)
