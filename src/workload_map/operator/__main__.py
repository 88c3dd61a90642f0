import sys

from workload_map.operator.main import main

sys.exit(main())
