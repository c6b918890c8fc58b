"""``python -m shortflow.logs analyze ACCESS_LOG ...``"""

from .cli import app

app(prog_name="shortflow logs")
