module heuristic_go

go 1.19
