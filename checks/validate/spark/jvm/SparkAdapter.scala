/*
 * yarnspec's adapter to Apache Spark's own scheduling classes.
 *
 * Speaks yarnspec's process protocol (docs/spark-validation.md): one JSON request per line on
 * stdin, one JSON answer per line on stdout; everything else (Spark's logging) goes to stderr.
 *
 * Contracts:
 *  - "spark-placement": org.apache.spark.deploy.yarn.LocalityPreferredContainerPlacementStrategy
 *    with a table rack resolver.
 *  - "spark-dispatch": the real TaskSchedulerImpl and TaskSetManager on a ManualClock, driven the
 *    way Spark's own TaskSchedulerImplSuite does (a local SparkContext for the environment, a
 *    backend that launches nothing, a DAGScheduler whose callbacks only record), with offers
 *    never shuffled and racks from a table.
 *
 * The code lives in Spark's scheduler package because the classes it drives are
 * package-private there (as Spark's own test suites do).
 */
package org.apache.spark.scheduler

import java.io.{BufferedReader, FileDescriptor, FileOutputStream, InputStreamReader, PrintStream}
import java.nio.charset.StandardCharsets
import java.util.Properties

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{ArrayNode, JsonNodeFactory, ObjectNode}

import org.apache.spark.{ExceptionFailure, ExecutorLostFailure, FetchFailed, JobArtifactSet, SparkConf, SparkContext, SparkEnv, TaskCommitDenied, TaskContext, TaskFailedReason, TaskKilled, TaskResultLost, TaskState, UnknownReason}
import org.apache.spark.deploy.yarn.Placement
import org.apache.spark.resource.{ResourceProfile, ResourceProfileManager}
import org.apache.spark.util.ManualClock

/** A protocol fault in a request: answered as {"id", "error"}; the session goes on. */
class AdapterFault(message: String) extends Exception(message)

/** A task that never runs: only its preferred locations matter to the scheduler. */
class AdapterTask(stageId: Int, stageAttemptId: Int, partitionId: Int, numPartitions: Int,
    prefLocs: Seq[TaskLocation], barrier: Boolean)
  extends Task[Int](stageId, stageAttemptId, partitionId, numPartitions,
    JobArtifactSet.emptyJobArtifactSet, new Properties, isBarrier = barrier) {
  override def runTask(context: TaskContext): Int = 0
  override def preferredLocations: Seq[TaskLocation] = prefLocs
}

/** The backend of TaskSchedulerImplSuite: launches nothing; kill requests are only recorded. */
class RecordingBackend extends SchedulerBackend {
  val kills = mutable.ArrayBuffer[Long]()
  override def start(): Unit = {}
  override def stop(): Unit = {}
  override def reviveOffers(): Unit = {}
  override def defaultParallelism(): Int = 1
  override def maxNumConcurrentTasks(rp: ResourceProfile): Int = 0
  override def getTaskThreadDump(taskId: Long, executorId: String) = None
  override def killTask(taskId: Long, executorId: String, interruptThread: Boolean, reason: String): Unit =
    kills += taskId
}

/** What the DAG scheduler was told during one step. */
final case class Launch(taskId: Long, stage: String, index: Int, executorId: String, host: String,
    locality: String, speculative: Boolean)

/** One spark-dispatch session: a fresh scheduler per "reset". */
class DispatchSession(sc: SparkContext) {
  private val json = JsonNodeFactory.instance
  private var clock: ManualClock = null
  private var scheduler: TaskSchedulerImpl = null
  private var dag: DAGScheduler = null
  private var backend: RecordingBackend = null
  private var lastManager: Option[TaskSetManager] = None
  private val owners = mutable.HashMap[Long, TaskSetManager]()
  private val launched = mutable.ArrayBuffer[Launch]()
  private val speculated = mutable.ArrayBuffer[(String, Int)]()
  private val failedSets = mutable.HashSet[String]()
  private var confKeys: Seq[String] = Nil

  def stop(): Unit = {
    if (dag != null) dag.stop()
    else if (scheduler != null) scheduler.stop()
    dag = null
    scheduler = null
  }

  /** "reset": a new TaskSchedulerImpl with the case's configuration, executors and racks. */
  def reset(input: JsonNode): ObjectNode = {
    stop()
    val schedulerKind = Json.text(input, "scheduler", "TaskSchedulerImpl")
    if (schedulerKind != "TaskSchedulerImpl") {
      throw new AdapterFault(s"input.scheduler: $schedulerKind is a test double of Spark's test " +
        "sources, not in Spark's jars; this adapter drives the real TaskSchedulerImpl only")
    }
    val mode = Json.text(input, "scheduling_mode", "FIFO")
    if (mode != "FIFO") throw new AdapterFault(s"input.scheduling_mode: only FIFO is driven, not $mode")
    val conf = Json.obj(input, "conf")
    confKeys.foreach(sc.conf.remove)
    confKeys = conf.fieldNames().asScala.toSeq
    conf.fields().asScala.foreach { e => sc.conf.set(e.getKey, Json.scalarText(e.getValue, s"input.conf.${e.getKey}")) }
    refreshDefaultProfile()
    val racks = Json.obj(input, "host_rack").fields().asScala.map(e => e.getKey -> e.getValue.asText()).toMap
    val defaultRack = racks.get("*")
    def rackOf(host: String): Option[String] = racks.get(host).orElse(defaultRack)
    val maxFailures = if (input.has("max_task_failures")) input.get("max_task_failures").asInt()
      else sc.conf.getInt("spark.task.maxFailures", 4)
    clock = new ManualClock(if (input.has("clock_start_ms")) input.get("clock_start_ms").asLong() else 0L)
    owners.clear()
    failedSets.clear()
    lastManager = None
    backend = new RecordingBackend
    scheduler = new TaskSchedulerImpl(sc, maxFailures, isLocal = false, clock = clock) {
      override def shuffleOffers(offers: IndexedSeq[WorkerOffer]): IndexedSeq[WorkerOffer] = offers
      override def getRackForHost(host: String): Option[String] = rackOf(host)
      override def getRacksForHosts(hosts: Seq[String]): Seq[Option[String]] = hosts.map(rackOf)
    }
    scheduler.initialize(backend)
    val session = this
    dag = new DAGScheduler(sc, scheduler) {
      override def taskStarted(task: Task[_], taskInfo: TaskInfo): Unit = session.started(task, taskInfo)
      override def taskGettingResult(taskInfo: TaskInfo): Unit = {}
      override def taskEnded(task: Task[_], reason: org.apache.spark.TaskEndReason, result: Any,
          accumUpdates: Seq[org.apache.spark.util.AccumulatorV2[_, _]], metricPeaks: Array[Long],
          taskInfo: TaskInfo): Unit = {}
      override def executorAdded(execId: String, host: String): Unit = {}
      override def executorLost(execId: String, reason: ExecutorLossReason): Unit = {}
      override def workerRemoved(workerId: String, host: String, message: String): Unit = {}
      override def taskSetFailed(taskSet: TaskSet, reason: String, exception: Option[Throwable]): Unit =
        session.failedSets += taskSet.id
      override def speculativeTaskSubmitted(task: Task[_], taskIndex: Int): Unit =
        session.speculated += ((s"${task.stageId}.${task.stageAttemptId}", taskIndex))
      override def unschedulableTaskSetAdded(stageId: Int, stageAttemptId: Int): Unit = {}
      override def unschedulableTaskSetRemoved(stageId: Int, stageAttemptId: Int): Unit = {}
    }
    val executors = Json.arr(input, "executors").asScala.toIndexedSeq.map { pair =>
      WorkerOffer(pair.get(0).asText(), pair.get(1).asText(), 0)
    }
    // Executors known from the start register the way Spark learns of them: through an offer
    // (with no free cores, before any task set exists, so nothing launches).
    if (executors.nonEmpty) scheduler.resourceOffers(executors)
    launched.clear()
    json.objectNode()
  }

  /** The default resource profile caches spark.task.cpus when first built; rebuild it so that
   * every reset reads its own setting, as a fresh application would. */
  private def refreshDefaultProfile(): Unit = {
    ResourceProfile.clearDefaultProfile()
    val manager = new ResourceProfileManager(sc.conf, sc.listenerBus)
    val field = classOf[SparkContext].getDeclaredFields.find(_.getName.endsWith("_resourceProfileManager")).get
    field.setAccessible(true)
    field.set(sc, manager)
  }

  private def started(task: Task[_], info: TaskInfo): Unit = {
    val stage = s"${task.stageId}.${task.stageAttemptId}"
    scheduler.taskSetManagerForAttempt(task.stageId, task.stageAttemptId).foreach(owners(info.taskId) = _)
    launched += Launch(info.taskId, stage, info.index, info.executorId, info.host,
      info.taskLocality.toString, info.speculative)
  }

  private def requireScheduler(): TaskSchedulerImpl = {
    if (scheduler == null) throw new AdapterFault("no scheduler: send \"reset\" first")
    scheduler
  }

  private def manager(op: String): TaskSetManager =
    lastManager.getOrElse(throw new AdapterFault(s"$op needs a task set, and none was submitted"))

  private def owner(taskId: Long): TaskSetManager =
    owners.getOrElse(taskId, throw new AdapterFault(s"no task with id $taskId was launched"))

  def step(op: String, input: JsonNode): ObjectNode = {
    val sched = requireScheduler()
    launched.clear()
    speculated.clear()
    op match {
      case "submit_task_set" =>
        val taskSet = Tasks.taskSet(input)
        sched.submitTasks(taskSet)
        lastManager = sched.taskSetManagerForAttempt(taskSet.stageId, taskSet.stageAttemptId)
      case "scheduler_resource_offers" =>
        val offers = Json.arr(input, "offers").asScala.toIndexedSeq.map { o =>
          WorkerOffer(o.get("exec_id").asText(), o.get("host").asText(), o.get("cores").asInt(),
            Some(s"${o.get("host").asText()}:7337"))
        }
        val full = !input.has("is_all_free_resources") || input.get("is_all_free_resources").asBoolean()
        if (input.has("shuffle") && input.get("shuffle").asText() != "none") {
          throw new AdapterFault("args.shuffle: only the given offer order is driven")
        }
        sched.resourceOffers(offers, full)
      case "resource_offer" =>
        val level = TaskLocality.withName(Json.text(input, "max_locality", "ANY"))
        manager(op).resourceOffer(input.get("exec_id").asText(), input.get("host").asText(), level,
          sched.CPUS_PER_TASK)
      case "advance_clock" =>
        clock.advance(input.get("ms").asLong())
      case "handle_successful_task" =>
        val taskId = input.get("task_id").asLong()
        sched.handleSuccessfulTask(owner(taskId), taskId, Tasks.result())
      case "handle_failed_task" =>
        val taskId = input.get("task_id").asLong()
        val state = TaskState.withName(Json.text(input, "state", "FAILED"))
        sched.handleFailedTask(owner(taskId), taskId, state, Tasks.failure(input.get("reason")))
      case "scheduler_executor_lost" =>
        sched.executorLost(input.get("exec_id").asText(), Tasks.loss(input.get("reason")))
      case "scheduler_decommission_executor" =>
        val worker = Option(input.get("worker_host")).filterNot(_.isNull).map(_.asText())
        sched.executorDecommission(input.get("exec_id").asText(), ExecutorDecommissionInfo("decommission", worker))
      case "manager_executor_added" =>
        manager(op).executorAdded()
      case "manager_executor_lost" =>
        manager(op).executorLost(input.get("exec_id").asText(), input.get("host").asText(),
          Tasks.loss(input.get("reason")))
      case "mark_running_tasks_launched" =>
        val m = manager(op)
        m.runningTasksSet.foreach(tid => m.taskInfos(tid).launchSucceeded())
      case "mark_speculatable" =>
        val m = manager(op)
        Json.arr(input, "task_indices").asScala.map(_.asInt()).foreach { index =>
          if (!m.speculatableTasks.contains(index)) {
            m.speculatableTasks += index
            m.addPendingTask(index, speculatable = true)
            speculated += ((m.taskSet.id, index))
          }
        }
      case "set_zombie" =>
        manager(op).isZombie = input.get("value").asBoolean()
      case "check_speculatable" =>
        sched.checkSpeculatableTasks()
      case "observe" =>
      case "scheduler_add_executor" | "scheduler_remove_executor" =>
        throw new AdapterFault(s"unknown op $op (an operation of Spark's test scheduler; the real " +
          "TaskSchedulerImpl learns of executors through offers)")
      case other =>
        throw new AdapterFault(s"unknown op $other")
    }
    observation(sched, op == "check_speculatable")
  }

  private def observation(sched: TaskSchedulerImpl, withSpeculatable: Boolean): ObjectNode = {
    val out = json.objectNode()
    val launches = out.putArray("launched")
    launched.sortBy(_.taskId).foreach { l =>
      val node = launches.addObject()
      node.put("task_id", l.taskId).put("stage", l.stage).put("index", l.index)
        .put("executor_id", l.executorId).put("host", l.host).put("locality", l.locality)
        .put("speculative", l.speculative)
    }
    val sets = out.putArray("task_sets")
    val managers = sched.rootPool.schedulableQueue.asScala.collect { case m: TaskSetManager => m }.toSeq
    managers.sortBy(m => (m.taskSet.stageId, m.taskSet.stageAttemptId)).foreach { m =>
      val node = sets.addObject()
      node.put("stage", m.taskSet.id)
      val levels = node.putArray("my_locality_levels")
      m.myLocalityLevels.foreach(l => levels.add(l.toString))
      val running = node.putArray("running_task_ids")
      m.runningTasksSet.toSeq.sorted.foreach(t => running.add(t))
      val done = node.putArray("successful_indices")
      m.successful.indices.filter(m.successful(_)).foreach(i => done.add(i))
      node.put("zombie", m.isZombie)
      node.put("failed", failedSets.contains(m.taskSet.id))
    }
    if (withSpeculatable) {
      val spec = out.putArray("speculatable")
      speculated.foreach { case (_, index) => spec.add(index) }
    }
    out
  }
}

/** Building Spark's task sets, results and failure reasons from protocol values. */
object Tasks {
  def location(node: JsonNode, place: String): TaskLocation = {
    if (node.isTextual) return TaskLocation(node.asText())
    val host = Json.text(node, "host", null)
    if (host == null) throw new AdapterFault(s"$place: a location needs a host")
    Json.text(node, "kind", "host") match {
      case "host" => TaskLocation(host)
      case "executor" => TaskLocation(host, Json.text(node, "executor", ""))
      case "hdfs_cache" => TaskLocation(TaskLocation.inMemoryLocationTag + host)
      case other => throw new AdapterFault(s"$place.kind: unknown location kind $other")
    }
  }

  def taskSet(input: JsonNode): TaskSet = {
    if (input.has("shuffle_map") && input.get("shuffle_map").asBoolean()) {
      throw new AdapterFault("args.shuffle_map: shuffle-map task sets are not driven by this adapter")
    }
    val stageId = if (input.has("stage_id")) input.get("stage_id").asInt() else 0
    val attempt = if (input.has("stage_attempt_id")) input.get("stage_attempt_id").asInt() else 0
    val priority = if (input.has("priority")) input.get("priority").asInt() else 0
    val barrier = input.has("barrier") && input.get("barrier").asBoolean()
    val prefs = Json.arr(input, "tasks").asScala.toIndexedSeq
    val tasks: Array[Task[_]] = prefs.zipWithIndex.map { case (locs, i) =>
      val locations = locs.asScala.toSeq.zipWithIndex.map { case (l, j) => location(l, s"args.tasks[$i][$j]") }
      new AdapterTask(stageId, attempt, i, prefs.size, locations, barrier): Task[_]
    }.toArray
    new TaskSet(tasks, stageId, attempt, priority, new Properties, ResourceProfile.DEFAULT_RESOURCE_PROFILE_ID, None)
  }

  def result(): DirectTaskResult[Int] = {
    val value = SparkEnv.get.serializer.newInstance().serialize[Int](0)
    new DirectTaskResult[Int](value, Seq.empty, Array.empty[Long])
  }

  def failure(node: JsonNode): TaskFailedReason = {
    if (node == null) throw new AdapterFault("args.reason: required")
    Json.text(node, "type", "") match {
      case "ExceptionFailure" => new ExceptionFailure(new RuntimeException("yarnspec: task failed"), Seq.empty)
      case "TaskKilled" => TaskKilled("yarnspec: killed")
      case "ExecutorLostFailure" =>
        val caused = !node.has("exit_caused_by_app") || node.get("exit_caused_by_app").asBoolean()
        ExecutorLostFailure(Json.text(node, "executor_id", "unknown"), caused, None)
      case "FetchFailed" => FetchFailed(null, 0, 0L, 0, 0, "yarnspec: fetch failed")
      case "TaskCommitDenied" => TaskCommitDenied(0, 0, 0)
      case "TaskResultLost" => TaskResultLost
      case "UnknownReason" => UnknownReason
      case other => throw new AdapterFault(s"args.reason.type: unknown task end reason $other")
    }
  }

  def loss(node: JsonNode): ExecutorLossReason = {
    if (node == null) throw new AdapterFault("args.reason: required")
    val worker = Option(node.get("worker_host")).filterNot(_.isNull).map(_.asText())
    Json.text(node, "type", "") match {
      case "ExecutorProcessLost" =>
        val caused = !node.has("caused_by_app") || node.get("caused_by_app").asBoolean()
        ExecutorProcessLost("yarnspec: process lost", worker, caused)
      case "ExecutorExited" =>
        ExecutorExited(node.get("exit_code").asInt(), node.get("exit_caused_by_app").asBoolean(), "yarnspec: exited")
      case "ExecutorKilled" => ExecutorKilled
      case "ExecutorDecommission" => ExecutorDecommission(worker, "yarnspec: decommissioned")
      case other => throw new AdapterFault(s"args.reason.type: unknown executor loss reason $other")
    }
  }
}

/** Small readers over Jackson's tree. */
object Json {
  def text(node: JsonNode, key: String, default: String): String =
    if (node != null && node.has(key) && !node.get(key).isNull) node.get(key).asText() else default

  def obj(node: JsonNode, key: String): JsonNode =
    if (node.has(key) && node.get(key).isObject) node.get(key) else JsonNodeFactory.instance.objectNode()

  def arr(node: JsonNode, key: String): JsonNode = {
    if (!node.has(key)) return JsonNodeFactory.instance.arrayNode()
    if (!node.get(key).isArray) throw new AdapterFault(s"$key: expected an array")
    node.get(key)
  }

  def scalarText(node: JsonNode, place: String): String =
    if (node.isValueNode) node.asText() else throw new AdapterFault(s"$place: expected a string, number or boolean")

  def addStrings(array: ArrayNode, values: Array[String]): Unit =
    if (values == null) array.addNull() else {
      val inner = array.addArray()
      values.foreach(v => inner.add(v))
    }
}

object SparkAdapter {
  val Contracts = Seq("spark-placement", "spark-dispatch")

  def main(args: Array[String]): Unit = {
    val out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8")
    System.setOut(System.err)
    val in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
    val mapper = new ObjectMapper()
    val json = JsonNodeFactory.instance
    var context: SparkContext = null
    var session: DispatchSession = null
    def dispatch(): DispatchSession = {
      if (session == null) {
        val conf = new SparkConf().setMaster("local[8]").setAppName("yarnspec-spark-adapter")
          .set("spark.ui.enabled", "false").set("spark.driver.host", "localhost")
          .set("spark.driver.bindAddress", "127.0.0.1")
        context = new SparkContext(conf)
        session = new DispatchSession(context)
      }
      session
    }
    var line = in.readLine()
    while (line != null) {
      if (line.trim.nonEmpty) {
        val answer = json.objectNode()
        try {
          val request = mapper.readTree(line)
          answer.set[JsonNode]("id", request.get("id"))
          val op = Json.text(request, "op", "")
          val input = if (request.has("input")) request.get("input") else json.objectNode()
          val output: JsonNode = op match {
            case "hello" =>
              val hello = json.objectNode()
              hello.put("name", "spark-adapter")
              hello.put("version", org.apache.spark.SPARK_VERSION)
              val contracts = hello.putArray("contracts")
              Contracts.foreach(c => contracts.add(c))
              hello
            case "locality_of_requested_containers" => Placement.localityOfRequestedContainers(input)
            case "reset" => dispatch().reset(input)
            case other => dispatch().step(other, input)
          }
          answer.set[JsonNode]("output", output)
        } catch {
          case fault: AdapterFault => answer.put("error", fault.getMessage)
          case NonFatal(e) =>
            e.printStackTrace(System.err)
            answer.put("error", s"${e.getClass.getName}: ${e.getMessage}")
        }
        out.println(mapper.writeValueAsString(answer))
      }
      line = in.readLine()
    }
    if (session != null) session.stop()
    if (context != null) context.stop()
  }
}
