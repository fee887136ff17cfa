// A spark-placement adapter in Go: an independent port of Spark's
// LocalityPreferredContainerPlacementStrategy.localityOfRequestedContainers behind the
// yarnspec process protocol (docs/validating.md), standard library only. Validate it with
//
//	go build -o /tmp/placement-adapter docs/examples/placement_adapter.go
//	yarnspec validate spark-placement --impl process:/tmp/placement-adapter
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"os"
)

type pendingRequest struct {
	Nodes []string `json:"nodes"`
}

type placementInput struct {
	NumContainers           int                `json:"num_containers"`
	NumLocalityAwareTasks   int                `json:"num_locality_aware_tasks"`
	HostToLocalTaskCount    [][2]any           `json:"host_to_local_task_count"`
	AllocatedHostContainers map[string]float64 `json:"allocated_host_to_container_count"`
	Pending                 []pendingRequest   `json:"locality_matched_pending_requests"`
	ExecutorCores           int                `json:"executor_cores"`
	TaskCpus                int                `json:"task_cpus"`
	RackResolver            map[string]string  `json:"rack_resolver"`
}

type placementOutput struct {
	Nodes [][]string `json:"nodes"`
	Racks [][]string `json:"racks"`
}

func racksOf(hosts []string, resolver map[string]string) []string {
	racks := []string{}
	seen := map[string]bool{}
	for _, host := range hosts {
		rack, found := resolver[host]
		if !found || host == "*" {
			rack, found = resolver["*"]
		}
		if found && !seen[rack] {
			seen[rack] = true
			racks = append(racks, rack)
		}
	}
	return racks
}

func localityOfRequestedContainers(in placementInput) (placementOutput, error) {
	if in.ExecutorCores < in.TaskCpus {
		return placementOutput{}, fmt.Errorf("an executor of %d cores cannot run a task of %d cpus", in.ExecutorCores, in.TaskCpus)
	}
	// 1. executors the locality-aware tasks need
	executors := math.Ceil(float64(in.NumLocalityAwareTasks) / float64(in.ExecutorCores/in.TaskCpus))
	// 2. each matched pending request counts as one container spread over its nodes
	slots := map[string]float64{}
	pending, totalSlots := 0.0, 0.0
	for _, request := range in.Pending {
		if len(request.Nodes) == 0 {
			continue
		}
		pending++
		for _, node := range request.Nodes {
			slots[node]++
			totalSlots++
		}
	}
	// 3. containers still needed per hint host, in the hint map's order
	totalTasks := 0.0
	for _, hint := range in.HostToLocalTaskCount {
		totalTasks += hint[1].(float64)
	}
	hosts := make([]string, len(in.HostToLocalTaskCount))
	need := make([]float64, len(in.HostToLocalTaskCount))
	totalNeed, largest := 0.0, 0.0
	for i, hint := range in.HostToLocalTaskCount {
		hosts[i] = hint[0].(string)
		if totalTasks == 0 {
			continue // an expected count of NaN needs nothing
		}
		share := 0.0
		if count, found := slots[hosts[i]]; found {
			share = count * pending / totalSlots
		}
		expected := hint[1].(float64) * executors / totalTasks
		need[i] = math.Max(0, math.Ceil(expected-(in.AllocatedHostContainers[hosts[i]]+share)))
		totalNeed += need[i]
		largest = math.Max(largest, need[i])
	}
	// 4. the requests beyond the total need carry no preference and come first
	free := int(math.Max(0, float64(in.NumContainers)-totalNeed))
	aware := in.NumContainers - free
	out := placementOutput{Nodes: make([][]string, free), Racks: make([][]string, free)}
	// 5. scale the needs so that the largest is `aware`; 6. request k lists hosts whose ratio > k
	for k := 0; k < aware; k++ {
		chosen := []string{}
		for i, host := range hosts {
			if math.Ceil(need[i]*float64(aware)/largest) > float64(k) {
				chosen = append(chosen, host)
			}
		}
		out.Nodes = append(out.Nodes, chosen)
		out.Racks = append(out.Racks, racksOf(chosen, in.RackResolver))
	}
	return out, nil
}

func handle(op string, raw json.RawMessage) (any, error) {
	switch op {
	case "hello":
		return map[string]any{"name": "placement_adapter.go", "version": "1", "contracts": []string{"spark-placement"}}, nil
	case "locality_of_requested_containers":
		in := placementInput{ExecutorCores: 1, TaskCpus: 1}
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, err
		}
		return localityOfRequestedContainers(in)
	}
	return nil, fmt.Errorf("unknown op %s", op)
}

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<26) // long lines: large inputs
	out := json.NewEncoder(os.Stdout)          // Encode writes one line per answer
	for scanner.Scan() {
		var request struct {
			ID    int64           `json:"id"`
			Op    string          `json:"op"`
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &request); err != nil {
			log.Fatal(err) // stderr; yarnspec reports the exit
		}
		output, err := handle(request.Op, request.Input)
		if err != nil {
			out.Encode(map[string]any{"id": request.ID, "error": err.Error()})
			continue
		}
		out.Encode(map[string]any{"id": request.ID, "output": output})
	}
}
