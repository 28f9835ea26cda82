"""Validates every `*.json` in a directory with the ATIF v1.8 Pydantic models of the `atif`
package (PyPI, strict: `extra="forbid"` on every model).

Usage: validate-atif.py DIR. Prints `N valid ATIF-v1.8 trajectories`, or each invalid file
with the models' errors and exits 1.
"""

import json
import pathlib
import sys

from atif import Trajectory
from pydantic import ValidationError

files = sorted(pathlib.Path(sys.argv[1]).glob("*.json"))
bad = 0
for path in files:
    document = json.loads(path.read_text(encoding="utf-8"))
    try:
        trajectory = Trajectory.model_validate(document)
    except ValidationError as error:
        bad += 1
        print(f"{path.name}: {error}")
        continue
    if trajectory.schema_version != "ATIF-v1.8":
        bad += 1
        print(f"{path.name}: schema_version {trajectory.schema_version}")
if bad:
    sys.exit(1)
print(f"{len(files)} valid ATIF-v1.8 trajectories")
