from workload_map.operator.main import main

main()
