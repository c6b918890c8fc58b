from shortflow.cli import main

main()
