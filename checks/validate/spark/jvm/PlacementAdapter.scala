/*
 * The "spark-placement" half of yarnspec's Spark adapter (see SparkAdapter.scala): the real
 * LocalityPreferredContainerPlacementStrategy, which is private to Spark's yarn package.
 */
package org.apache.spark.deploy.yarn

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.{ArrayNode, JsonNodeFactory, ObjectNode}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.net.{Node, NodeBase}
import org.apache.hadoop.yarn.api.records.{ContainerId, Priority, Resource}
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest

import org.apache.spark.SparkConf
import org.apache.spark.resource.{ExecutorResourceRequest, ResourceProfile, TaskResourceRequest}
import org.apache.spark.scheduler.Json

/** "spark-placement": the real LocalityPreferredContainerPlacementStrategy. */
object Placement {
  private val json = JsonNodeFactory.instance

  /** Hadoop's rack resolver, answered from a table ("*" is the rack of unlisted hosts). A host
   * with no rack gets a node whose network location is null, which the strategy drops (what
   * Spark's own MockResolver does for hosts it does not know). */
  class TableRackResolver(racks: Map[String, String]) extends SparkRackResolver(new Configuration(false)) {
    private def rackOf(host: String): String = racks.getOrElse(host, racks.getOrElse("*", null))
    override def resolve(hostName: String): String = rackOf(hostName)
    override def resolve(hostNames: Seq[String]): Seq[Node] = hostNames.map { h =>
      val rack = rackOf(h)
      if (rack != null) new NodeBase(h, rack)
      else new NodeBase(h, NodeBase.ROOT) { override def getNetworkLocation: String = null }
    }
  }

  def localityOfRequestedContainers(input: JsonNode): ObjectNode = {
    val executorCores = if (input.has("executor_cores")) input.get("executor_cores").asInt() else 1
    val taskCpus = if (input.has("task_cpus")) input.get("task_cpus").asInt() else 1
    val sparkConf = new SparkConf(false).set("spark.executor.cores", executorCores.toString)
      .set("spark.task.cpus", taskCpus.toString)
    val racks = Json.obj(input, "rack_resolver").fields().asScala.map(e => e.getKey -> e.getValue.asText()).toMap
    val strategy = new LocalityPreferredContainerPlacementStrategy(sparkConf, new Configuration(false),
      new TableRackResolver(racks))
    // Spark's callers hand over an immutable Map built from the driver's hints; up to four
    // entries it keeps their order, above that it is a hash map (as in Spark itself).
    val hints = Json.arr(input, "host_to_local_task_count").asScala.toSeq
      .map(pair => pair.get(0).asText() -> pair.get(1).asInt())
    val hostToCount: Map[String, Int] = Map(hints: _*)
    val allocated = mutable.HashMap[String, mutable.Set[ContainerId]]()
    var nextContainer = 1L
    Json.obj(input, "allocated_host_to_container_count").fields().asScala.foreach { e =>
      val ids = mutable.HashSet[ContainerId]()
      (0 until e.getValue.asInt()).foreach { _ =>
        ids += ContainerId.fromString(f"container_1_0001_01_$nextContainer%06d")
        nextContainer += 1
      }
      allocated(e.getKey) = ids
    }
    val resource = Resource.newInstance(1024, executorCores)
    val pending = Json.arr(input, "locality_matched_pending_requests").asScala.toSeq.map { r =>
      val nodes = r.get("nodes")
      val hosts: Array[String] = if (nodes == null || nodes.isNull) null else nodes.asScala.map(_.asText()).toArray
      new ContainerRequest(resource, hosts, null, Priority.newInstance(1))
    }
    val profile = new ResourceProfile(
      Map("cores" -> new ExecutorResourceRequest("cores", executorCores)),
      Map("cpus" -> new TaskResourceRequest("cpus", taskCpus)))
    val result = strategy.localityOfRequestedContainers(input.get("num_containers").asInt(),
      input.get("num_locality_aware_tasks").asInt(), hostToCount, allocated, pending, profile)
    val out = json.objectNode()
    val nodes = out.putArray("nodes")
    val rackLists = out.putArray("racks")
    result.foreach { pref =>
      Json.addStrings(nodes, pref.nodes)
      Json.addStrings(rackLists, pref.racks)
    }
    out
  }
}

