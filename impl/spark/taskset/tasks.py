"""The tasks a task set manager hands out and hears back about: the task set
(``TaskSet``), one attempt (``TaskInfo``) and what an offer hands out for it
(``TaskDescription``), Spark's ``TaskState`` and ``TaskEndReason``, the executor loss reasons,
and the answer to one offer (:class:`OfferResult`)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from yarnspec.impl.spark.locality import TaskLocality, TaskLocation, parse_task_location


@dataclass(frozen=True)
class TaskSet:
    """One stage attempt's tasks: ``preferences[i]`` is task ``i``'s preferred locations
    (possibly empty). ``barrier`` tasks must all launch together; ``shuffle_map`` tasks leave
    output on their executor that is lost with it."""

    stage_id: int
    stage_attempt_id: int
    priority: int
    preferences: tuple[tuple[TaskLocation, ...], ...]
    barrier: bool = False
    shuffle_map: bool = False

    @classmethod
    def of(
        cls,
        *tasks: Sequence[str | TaskLocation],
        stage_id: int = 0,
        stage_attempt_id: int = 0,
        priority: int = 0,
        barrier: bool = False,
        shuffle_map: bool = False,
    ) -> TaskSet:
        """A task set from one preference list per task; a location may be given in Spark's
        string form (``"host1"``, ``"executor_host1_3"``, ``"hdfs_cache_host1"``)."""
        preferences = tuple(
            tuple(
                parse_task_location(loc, f"tasks[{i}][{j}]") if isinstance(loc, str) else loc
                for j, loc in enumerate(prefs)
            )
            for i, prefs in enumerate(tasks)
        )
        return cls(stage_id, stage_attempt_id, priority, preferences, barrier, shuffle_map)

    @property
    def name(self) -> str:
        """``"<stage>.<attempt>"``, as Spark prints a task set's id."""
        return f"{self.stage_id}.{self.stage_attempt_id}"

    @property
    def num_tasks(self) -> int:
        """How many tasks the set holds."""
        return len(self.preferences)


class TaskState(enum.Enum):
    """Spark's ``TaskState`` values an attempt can end in or report."""

    LAUNCHING = "LAUNCHING"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    FAILED = "FAILED"
    KILLED = "KILLED"
    LOST = "LOST"


class EndReason(enum.Enum):
    """Why an attempt ended, named as Spark's ``TaskEndReason`` classes."""

    SUCCESS = "Success"
    RESUBMITTED = "Resubmitted"
    TASK_RESULT_LOST = "TaskResultLost"
    EXCEPTION_FAILURE = "ExceptionFailure"
    TASK_KILLED = "TaskKilled"
    EXECUTOR_LOST_FAILURE = "ExecutorLostFailure"
    FETCH_FAILED = "FetchFailed"
    TASK_COMMIT_DENIED = "TaskCommitDenied"
    UNKNOWN_REASON = "UnknownReason"


@dataclass(frozen=True)
class TaskEndReason:
    """An end reason; ``exit_caused_by_app`` is read only for ``ExecutorLostFailure``."""

    kind: EndReason
    exit_caused_by_app: bool = True

    @property
    def counts_towards_failures(self) -> bool:
        """Spark's ``countTowardsTaskFailures``: kills, denied commits and fetch failures do
        not count; an executor loss counts only when the application caused it."""
        if self.kind in (EndReason.TASK_KILLED, EndReason.TASK_COMMIT_DENIED, EndReason.FETCH_FAILED):
            return False
        if self.kind is EndReason.EXECUTOR_LOST_FAILURE:
            return self.exit_caused_by_app
        return True


SUCCESS = TaskEndReason(EndReason.SUCCESS)
RESUBMITTED = TaskEndReason(EndReason.RESUBMITTED)


class ExecutorLoss(enum.Enum):
    """Spark's ``ExecutorLossReason`` classes a task set manager tells apart."""

    PROCESS_LOST = "ExecutorProcessLost"
    EXITED = "ExecutorExited"
    KILLED = "ExecutorKilled"
    DECOMMISSION = "ExecutorDecommission"


@dataclass(frozen=True)
class ExecutorLossReason:
    """Why an executor went away. ``caused_by_app`` is the ``causedByApp`` /
    ``exitCausedByApp`` flag of a process loss or exit (Spark's default for a process loss is
    true); a kill by the driver or a decommission is never the application's fault."""

    kind: ExecutorLoss
    caused_by_app: bool = True
    worker_host: str | None = None

    @property
    def blames_app(self) -> bool:
        """Whether the loss, on its own, counts against the tasks it interrupts."""
        if self.kind in (ExecutorLoss.KILLED, ExecutorLoss.DECOMMISSION):
            return False
        return self.caused_by_app


@dataclass(slots=True)
class TaskInfo:
    """One attempt of one task (Spark's ``TaskInfo``). ``launching`` stays true until the
    executor reports RUNNING; ``end_state`` is ``None`` while the attempt runs."""

    task_id: int
    index: int
    attempt_number: int
    launch_time: int
    executor_id: str
    host: str
    locality: TaskLocality
    speculative: bool
    launching: bool = True
    end_state: TaskState | None = None
    finish_time: int | None = None

    @property
    def running(self) -> bool:
        """True until the attempt ends."""
        return self.end_state is None

    @property
    def failed(self) -> bool:
        """Ended FAILED or LOST (``TaskState.isFailed``)."""
        return self.end_state in (TaskState.FAILED, TaskState.LOST)

    @property
    def killed(self) -> bool:
        """Ended KILLED."""
        return self.end_state is TaskState.KILLED


@dataclass(frozen=True)
class TaskDescription:
    """What an offer hands out: one attempt of one task on one executor."""

    task_id: int
    index: int
    attempt_number: int
    executor_id: str
    host: str
    locality: TaskLocality
    speculative: bool
    task_set: str

    @classmethod
    def of(cls, info: TaskInfo, task_set: str) -> TaskDescription:
        """The description of a launched attempt."""
        return cls(
            info.task_id,
            info.index,
            info.attempt_number,
            info.executor_id,
            info.host,
            info.locality,
            info.speculative,
            task_set,
        )


@dataclass(frozen=True)
class BarrierPendingLaunch:
    """A barrier task the set would launch on this offer; held until the scheduler knows that
    every task of the set found a slot in the same round."""

    index: int
    executor_id: str
    host: str
    locality: TaskLocality


@dataclass(frozen=True)
class OfferResult:
    """The answer to one offer: a launched task, or a barrier task held for the round, or
    nothing; ``delay_reject`` is Spark's ``hasScheduleDelayReject`` (semantics 5.5 step 6)."""

    task: TaskDescription | None = None
    barrier_pending: BarrierPendingLaunch | None = None
    delay_reject: bool = False

    @property
    def locality(self) -> TaskLocality | None:
        """The locality the task was taken at, if any."""
        if self.task is not None:
            return self.task.locality
        return self.barrier_pending.locality if self.barrier_pending is not None else None
