"""The analysis tools' optional dependencies: a clear error when missing.

  require_analysis_extra("analyze_position_embeddings.py")

raises InputError("analyze_position_embeddings.py needs matplotlib and
scikit-learn (the analysis extra; missing: matplotlib): pip install -e
.[analysis]"), one line that cli.run prints instead of a traceback.
"""

import importlib

from tokenization.errors import InputError

MODULES = {"matplotlib": "matplotlib", "sklearn": "scikit-learn"}
INSTALL = "pip install -e .[analysis]"


def require_analysis_extra(script):
  """Raises InputError naming INSTALL unless every module of MODULES imports.

  >>> require_analysis_extra("analyze_position_embeddings.py")  # installed
  """
  missing = []
  for module, package in MODULES.items():
    try:
      importlib.import_module(module)
    except ImportError:
      missing.append(package)
  if missing:
    raise InputError("%s needs matplotlib and scikit-learn (the analysis "
                     "extra; missing: %s): %s"
                     % (script, ", ".join(missing), INSTALL))
