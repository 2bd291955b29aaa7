"""sightline capture: LangChain runner (written by the LangChain calibration)."""
import json
print(json.dumps({"run_error": "the LangChain runner is not written yet"}))
