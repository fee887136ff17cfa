------------------------- MODULE AsyncDoubleCommit -------------------------
(***************************************************************************)
(* yarnspec's world async-double-commit, variant yarn-8127, written again  *)
(* by hand in TLA+ so that TLC can explore the same state space as        *)
(* `yarnspec explore async-double-commit --variant yarn-8127               *)
(*  --no-symmetry --exhaustive` (benchmarks/tlc_compare.py runs both).     *)
(*                                                                         *)
(* The world: one leaf queue `a` (100% of root), a 12 GB node n0 and a     *)
(* 2 GB node n1, one application asking for a 1 GB AM and up to four 4 GB  *)
(* containers, asynchronous scheduling with single-node placement: a       *)
(* scheduling thread proposes for one node from the state it reads, and    *)
(* the committer later accepts or rejects each proposal in flight against  *)
(* the state as it is then. Sizes are in GB (the minimum allocation); the  *)
(* default resource calculator compares memory only, so vcores are left    *)
(* out. Bounds as in the world file: at most 2 proposals in flight, 4      *)
(* outstanding asks, 6 container ids; the clock never moves (a tick is a   *)
(* stuttering step), nodes do not churn, the app is submitted at most once.*)
(*                                                                         *)
(* Stored state is what the explorer stores and can differ between states; *)
(* figures that are a function of it in every reachable state of this      *)
(* variant (queue, user and application usage, pending, AM used, the AM    *)
(* container id, the submission number) are computed instead. The node's  *)
(* used resource is stored, as Hadoop stores it, and NodeUsedIsSum checks  *)
(* it against the containers (it breaks in variant pre-8127).              *)
(***************************************************************************)
EXTENDS Naturals, Integers, FiniteSets, Bags

NONE == -1
Nodes == {0, 1}
Requests == {0, 1}                       \* 0: the AM request; 1: the 4 GB request
Capacity == [n \in Nodes |-> IF n = 0 THEN 12 ELSE 2]
Size == [r \in Requests |-> IF r = 0 THEN 1 ELSE 4]
Cluster == 14                            \* both nodes live for ever
QueueMax == 14                           \* a's and root's maximum (100%), rounded down
MinAlloc == 1
MaxProposals == 2
MaxAsk == 4
MaxContainers == 6
MaxRereservations == 4

VARIABLES
    phase,      \* the application: "none" (not submitted), "active", "finished"
    asks,       \* outstanding containers per request
    rereserve,  \* re-reservation count per scheduler key (= request here)
    ctrs,       \* tracked containers: [id, node, req, st], st in reserved/allocated/running
    nextId,     \* the next container id (ids are never reused)
    inflight,   \* the proposals in flight: a bag
    nodeUsed    \* per node, its allocated resource as the scheduler stores it

vars == <<phase, asks, rereserve, ctrs, nextId, inflight, nodeUsed>>

Max(x, y) == IF x >= y THEN x ELSE y
Min(x, y) == IF x <= y THEN x ELSE y

RECURSIVE SizeSum(_)
SizeSum(S) == IF S = {} THEN 0
              ELSE LET c == CHOOSE x \in S : TRUE IN Size[c.req] + SizeSum(S \ {c})

Live(c) == c.st \in {"allocated", "running"}
Reserved == {c \in ctrs : c.st = "reserved"}
Container(id) == CHOOSE c \in ctrs : c.id = id
Tracked(id) == \E c \in ctrs : c.id = id
IsReservation(id) == \E c \in Reserved : c.id = id

\* The queue's (and the single user's) used counts reservations, as Hadoop's does.
QueueUsed == SizeSum(ctrs)
AppReserved == SizeSum(Reserved)
NodeFree(n) == Capacity[n] - nodeUsed[n]
NodeReservation(n) == IF \E c \in Reserved : c.node = n
                      THEN (CHOOSE c \in Reserved : c.node = n).id ELSE NONE
AmRunning == phase = "active" /\ \E c \in ctrs : c.req = 0 /\ c.st = "running"
Pending == IF phase = "active" THEN asks[0] * Size[0] + asks[1] * Size[1] ELSE 0

(* The user limit (UsersManager.computeUserLimit) with one user, a queue   *)
(* guaranteed the whole cluster, minimum-user-limit-percent 100 and        *)
(* user-limit-factor 1: the queue's capacity, whatever the user uses.      *)
UserLimit == Cluster

(***************************************************************************)
(* The allocation pass for one node (single-node placement).               *)
(***************************************************************************)
Nothing == [kind |-> "none"]
Prop(kind, req, n, from, rel) ==
    [kind |-> kind, req |-> req, node |-> n, from |-> from, rel |-> rel]
NeedsNewId(p) == p.kind = "reserve" \/ (p.kind = "allocate" /\ p.from = NONE)

ReservationsOf(k) == {c \in Reserved : c.req = k}

(* shouldAllocOrReserveNewContainer: starvation + outstanding - reserved > 0, *)
(* starvation = (int)(rereservations / reserved * (1 - min(4/8, 7/8))).       *)
ShouldAllocOrReserve(k) ==
    LET r == Cardinality(ReservationsOf(k))
        starvation == IF r = 0 THEN 0 ELSE rereserve[k] \div (2 * r)
    IN starvation + asks[k] - r > 0

(* canAssignToThisQueue (root and the leaf read the same figures): below   *)
(* the limit, or, with reservations-continue-looking, below it once the    *)
(* app's reservations are given up.                                        *)
QueueAllows == QueueUsed < QueueMax
               \/ (AppReserved > 0 /\ QueueUsed - AppReserved < QueueMax)
Headroom == QueueMax - QueueUsed
AmountNeededUnreserve == IF QueueUsed < QueueMax THEN 0 ELSE QueueUsed - QueueMax

(* A reservation of key k at least `amount` large, the smallest id first.  *)
ToRelease(k, amount) ==
    LET fit == {c \in ReservationsOf(k) : Size[c.req] >= amount}
    IN IF fit = {} THEN NONE ELSE (CHOOSE c \in fit : \A d \in fit : c.id <= d.id).id

(* RegularContainerAllocator.assignContainer for key k on node n, no reservation. *)
AssignContainer(k, n) ==
    LET toUnreserve == Max(Size[k] - Headroom, AmountNeededUnreserve)
        mustUnreserve == toUnreserve > 0
        should == ShouldAllocOrReserve(k)
    IN IF Size[k] > Capacity[n] THEN Nothing
       ELSE IF NodeFree(n) >= Size[k] THEN
            IF ~should \/ mustUnreserve THEN
                LET rel == ToRelease(k, IF mustUnreserve THEN toUnreserve ELSE Size[k])
                IN IF rel = NONE THEN Nothing ELSE Prop("allocate", k, n, NONE, rel)
            ELSE Prop("allocate", k, n, NONE, NONE)
       ELSE IF should /\ ~mustUnreserve THEN Prop("reserve", k, n, NONE, NONE)
       ELSE Nothing

(* The app's keys in priority order: a key with nothing outstanding is     *)
(* skipped; the first other key decides (preCheckForNodeCandidateSet's     *)
(* headroom check may skip the queue).                                     *)
RECURSIVE AssignKeys(_, _)
AssignKeys(k, n) ==
    IF k > 1 THEN Nothing
    ELSE IF asks[k] = 0 THEN AssignKeys(k + 1, n)
    ELSE IF Headroom + AppReserved < Size[k] THEN Nothing
    ELSE AssignContainer(k, n)

(* allocateFromReservedContainer: the node serves only its reservation.    *)
ServeReservation(n, id) ==
    LET c == Container(id) IN
    IF phase # "active" THEN Nothing
    ELSE IF asks[c.req] = 0 THEN Prop("unreserve", c.req, n, id, NONE)
    ELSE IF NodeFree(n) >= Size[c.req] THEN Prop("allocate", c.req, n, id, NONE)
    ELSE Prop("rereserve", c.req, n, id, NONE)

Pass(n) ==
    IF NodeReservation(n) # NONE THEN ServeReservation(n, NodeReservation(n))
    ELSE IF NodeFree(n) < MinAlloc \/ Pending = 0 THEN Nothing
    ELSE IF ~QueueAllows \/ QueueUsed > UserLimit THEN Nothing
    ELSE AssignKeys(0, n)

(***************************************************************************)
(* The commit step (CapacityScheduler.tryCommit) with YARN-8127's check.   *)
(***************************************************************************)
Released(p) == IF p.rel # NONE /\ Tracked(p.rel) THEN Size[Container(p.rel).req] ELSE 0

LimitsAccept(p) ==
    /\ QueueUsed - Released(p) <= UserLimit
    /\ QueueUsed + Size[p.req] - Released(p) <= QueueMax     \* leaf a, then root

AllocationAccept(p) ==
    /\ asks[p.req] > 0
    /\ IF NodeReservation(p.node) # NONE
       THEN p.from = NodeReservation(p.node)
       ELSE p.from = NONE              \* YARN-8127: the node must hold the reservation
    /\ NodeFree(p.node) >= Size[p.req]
    /\ p.rel = NONE \/ IsReservation(p.rel)

Accept(p) ==
    /\ phase = "active"
    /\ CASE p.kind = "unreserve" -> IsReservation(p.from)
         [] p.kind = "rereserve" -> NodeReservation(p.node) = p.from /\ LimitsAccept(p)
         [] p.kind = "reserve"   -> NodeReservation(p.node) = NONE /\ LimitsAccept(p)
         [] p.kind = "allocate"  -> AllocationAccept(p) /\ (p.from # NONE \/ LimitsAccept(p))

(* A reservation ends: its key's re-reservation count starts again.        *)
DropReservation(id) ==
    /\ ctrs' = {c \in ctrs : c.id # id}
    /\ rereserve' = [rereserve EXCEPT ![Container(id).req] = 0]

Allocated(p, id) == [id |-> id, node |-> p.node, req |-> p.req, st |-> "allocated"]
Charge(p) ==
    /\ nodeUsed' = [nodeUsed EXCEPT ![p.node] = @ + Size[p.req]]
    /\ asks' = [asks EXCEPT ![p.req] = @ - 1]

Apply(p) ==
    CASE p.kind = "unreserve" ->
            DropReservation(p.from) /\ UNCHANGED <<asks, nextId, nodeUsed>>
      [] p.kind = "rereserve" ->
            /\ rereserve' = [rereserve EXCEPT ![p.req] = Min(@ + 1, MaxRereservations)]
            /\ UNCHANGED <<asks, ctrs, nextId, nodeUsed>>
      [] p.kind = "reserve" ->
            /\ ctrs' = ctrs \cup {[id |-> nextId, node |-> p.node, req |-> p.req, st |-> "reserved"]}
            /\ nextId' = nextId + 1
            /\ UNCHANGED <<asks, rereserve, nodeUsed>>
      [] p.kind = "allocate" /\ p.from # NONE ->    \* the reservation becomes the container
            /\ ctrs' = {c \in ctrs : c.id # p.from} \cup {Allocated(p, p.from)}
            /\ rereserve' = [rereserve EXCEPT ![p.req] = 0]
            /\ Charge(p)
            /\ UNCHANGED nextId
      [] OTHER ->
            /\ ctrs' = {c \in ctrs : c.id # p.rel} \cup {Allocated(p, nextId)}
            /\ rereserve' = IF p.rel = NONE THEN rereserve
                            ELSE [rereserve EXCEPT ![Container(p.rel).req] = 0]
            /\ nextId' = nextId + 1
            /\ Charge(p)

Propose(n) ==
    /\ BagCardinality(inflight) < MaxProposals
    /\ Pass(n) # Nothing
    /\ inflight' = inflight (+) SetToBag({Pass(n)})
    /\ UNCHANGED <<phase, asks, rereserve, ctrs, nextId, nodeUsed>>

(* Written as IF, not as a disjunction: TLC would take both disjuncts as    *)
(* two ways to the same successor and count it twice in "states generated". *)
Committable(p) == IF NeedsNewId(p) THEN nextId < MaxContainers ELSE TRUE

Commit(p) ==
    /\ Committable(p)
    /\ inflight' = inflight (-) SetToBag({p})
    /\ IF Accept(p) THEN Apply(p)
       ELSE UNCHANGED <<asks, rereserve, ctrs, nextId, nodeUsed>>
    /\ UNCHANGED phase

(***************************************************************************)
(* The environment.                                                        *)
(***************************************************************************)
Submit ==
    /\ phase = "none"
    /\ phase' = "active"               \* the first app of the queue is always activated
    /\ asks' = [asks EXCEPT ![0] = 1]
    /\ UNCHANGED <<rereserve, ctrs, nextId, inflight, nodeUsed>>

Ask ==
    /\ AmRunning /\ asks[1] < MaxAsk
    /\ asks' = [asks EXCEPT ![1] = @ + 1]
    /\ UNCHANGED <<phase, rereserve, ctrs, nextId, inflight, nodeUsed>>

Cancel ==
    /\ AmRunning /\ asks[1] > 0
    /\ asks' = [asks EXCEPT ![1] = @ - 1]
    /\ UNCHANGED <<phase, rereserve, ctrs, nextId, inflight, nodeUsed>>

Launch(c) ==
    /\ c.st = "allocated"
    /\ ctrs' = (ctrs \ {c}) \cup {[c EXCEPT !.st = "running"]}
    /\ UNCHANGED <<phase, asks, rereserve, nextId, inflight, nodeUsed>>

EndContainer(c) ==
    /\ ctrs' = ctrs \ {c}
    /\ nodeUsed' = [nodeUsed EXCEPT ![c.node] = @ - Size[c.req]]
    /\ UNCHANGED <<phase, asks, rereserve, nextId, inflight>>

Complete(c) == c.st = "running" /\ c.req # 0 /\ EndContainer(c)
Release(c) == Live(c) /\ c.req # 0 /\ AmRunning /\ EndContainer(c)

FinishApp ==
    /\ phase = "active"
    /\ phase' = "finished"
    /\ ctrs' = {}
    /\ nodeUsed' = [n \in Nodes |-> 0]
    /\ asks' = [r \in Requests |-> 0]
    /\ rereserve' = [k \in Requests |-> IF ReservationsOf(k) = {} THEN rereserve[k] ELSE 0]
    /\ UNCHANGED <<nextId, inflight>>

Tick == UNCHANGED vars                 \* the clock is at its bound (max_clock_ms = 0)

Init ==
    /\ phase = "none"
    /\ asks = [r \in Requests |-> 0]
    /\ rereserve = [k \in Requests |-> 0]
    /\ ctrs = {}
    /\ nextId = 0
    /\ inflight = EmptyBag
    /\ nodeUsed = [n \in Nodes |-> 0]

Next ==
    \/ Submit \/ Ask \/ Cancel
    \/ \E c \in ctrs : Launch(c) \/ Complete(c) \/ Release(c)
    \/ FinishApp \/ Tick
    \/ \E n \in Nodes : Propose(n)
    \/ \E p \in BagToSet(inflight) : Commit(p)

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Invariants (a few of yarnspec's accounting invariants, computed from    *)
(* the containers).                                                        *)
(***************************************************************************)
NodeUsedIsSum == \A n \in Nodes :
    nodeUsed[n] = SizeSum({c \in ctrs : c.node = n /\ Live(c)})
NodeWithinCapacity == \A n \in Nodes : 0 <= nodeUsed[n] /\ nodeUsed[n] <= Capacity[n]
QueueWithinMaximum == QueueUsed <= QueueMax
OneReservationPerNode == \A c, d \in Reserved : c.node = d.node => c = d
=============================================================================
