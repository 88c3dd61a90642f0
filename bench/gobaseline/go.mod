module workload-map.local/bench/gobaseline

go 1.22
