#!/usr/bin/env python3
"""ns-3 (PyPI "ns3", via cppyy) DCTCP dumbbell: the side-by-side speed baseline.

N senders -- S -- R. Each sender has its own point-to-point link to switch S,
S has one bottleneck link to receiver R; every link has the same rate and
propagation delay. Each sender runs one unlimited BulkSend flow of DCTCP to
R; all flows start at t = 0 exactly (no stagger). The bottleneck queue (at S,
toward R) is RED configured as DCTCP step marking: MinTh = MaxTh = K packets,
QW = 1 (instantaneous queue), Gentle off, ECN marks instead of drops.

Prints ONE JSON object on stdout. Set up with: bash scripts/ns3_env.sh
Run with:     .venv-ns3/bin/python scripts/ns3_dctcp_dumbbell.py [--help]

All measuring during the run is C++ (compiled once through cppyy.cppdef, before
the run): a sampler event every 1 us of simulated time that appends the RED
queue length to a std::vector, and trace sinks on R's bottleneck device that
count packets and bytes. No Python runs per event inside Simulator.Run(); the
probes' own C++ cost IS inside wall_s_run (--no-probes measures without them).
"""
import time

T_START = time.perf_counter()  # wall_s_total counts from here (after interpreter start)

import argparse, json, sys
from importlib.metadata import version

WARMUP_MS = 10  # queue percentiles exclude the first 10 ms of simulated time
SEG_BYTES = 1448  # TCP payload; + 32 B TCP header with timestamps + 20 B IP = 1500 B


def ranged(kind, lo, hi, lo_open=False):
    """argparse type: a number of `kind` in [lo, hi] (or (lo, hi] if lo_open)."""
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"'{text}' is not {what}")
        if v != v or (v <= lo if lo_open else v < lo) or v > hi:
            legal = f"{'(' if lo_open else '['}{lo}, {hi}]"
            raise argparse.ArgumentTypeError(f"{text} is out of range; legal range is {legal}")
        return v
    return parse


def parse_args():
    p = argparse.ArgumentParser(
        description="ns-3 DCTCP dumbbell speed baseline; prints one JSON object on stdout.")
    p.add_argument("--senders", type=ranged(int, 1, 250), default=8,
                   help="number of senders, each with one long DCTCP flow to R (count; 1..250; default 8)")
    p.add_argument("--rate-gbps", type=ranged(float, 0, 1000, lo_open=True), default=10.0,
                   help="rate of every link, bottleneck included (Gb/s; >0..1000; default 10)")
    p.add_argument("--link-delay-us", type=ranged(float, 0, 1000000, lo_open=True), default=20.0,
                   help="propagation delay of every link (microseconds; >0..1000000; default 20); "
                        "base RTT = 4 x this + serialization")
    p.add_argument("--k-pkts", type=ranged(int, 1, 100000), default=65,
                   help="DCTCP marking threshold K: RED MinTh = MaxTh = K (packets; 1..100000; default 65)")
    p.add_argument("--duration-ms", type=ranged(float, WARMUP_MS, 1000000, lo_open=True), default=100.0,
                   help=f"simulated time (milliseconds; >{WARMUP_MS}..1000000, since the first "
                        f"{WARMUP_MS} ms are left out of the queue statistics; default 100)")
    p.add_argument("--no-probes", action="store_true",
                   help="run without the 1 us queue sampler and the per-packet counters, to "
                        "measure what they cost inside wall_s_run (delivered_pkts then comes "
                        "from the sink's byte count / segment size; no queue figures)")
    return p.parse_args()


# C++ measuring helpers: scheduled and traced entirely in C++ during Run().
PROBE_CPP = r"""
namespace ldcp_ns3 {
using namespace ns3;
struct Probe {
    Ptr<QueueDisc> qd;                  // the bottleneck RED queue disc at S
    Time period, half;                  // sampling period; half of the run
    std::vector<uint32_t> q;            // RED queue length samples, packets
    uint64_t dataPkts = 0, acks = 0;    // data packets received at R; packets R sent
    uint64_t ipBytesHalf2 = 0;          // IP bytes received at R in the 2nd half
    uint32_t ipMin = 0xffffffffu, ipMax = 0;   // IP size range of data packets
    void Sample() {
        q.push_back(qd->GetNPackets());
        Simulator::Schedule(period, &Probe::Sample, this);
    }
    // R's bottleneck device, PhyRxEnd: the packet still carries its PPP header.
    void OnRx(Ptr<const Packet> p) {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp; Ipv4Header ip; TcpHeader tcp;
        c->RemoveHeader(ppp);
        c->RemoveHeader(ip);
        uint32_t ipSize = ip.GetPayloadSize() + ip.GetSerializedSize();
        if (Simulator::Now() >= half) ipBytesHalf2 += ipSize;
        c->RemoveHeader(tcp);
        if (c->GetSize() > 0) {         // TCP payload present: a data packet
            ++dataPkts;
            ipMin = std::min(ipMin, ipSize);
            ipMax = std::max(ipMax, ipSize);
        }
    }
    void OnTx(Ptr<const Packet>) { ++acks; }   // R's bottleneck device, PhyTxEnd
    void Attach(Ptr<NetDevice> rDev, double startS) {
        rDev->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&Probe::OnRx, this));
        rDev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&Probe::OnTx, this));
        Simulator::Schedule(Seconds(startS), &Probe::Sample, this);
    }
};
}
"""


def pct(sorted_vals, p):
    """Nearest-rank percentile of an ascending list."""
    if not sorted_vals:
        return None
    return sorted_vals[max(1, -(-len(sorted_vals) * p // 100)) - 1]  # rank ceil(n*p/100)


def main():
    a = parse_args()
    from ns import ns  # slow (seconds): cppyy parses the ns-3 headers
    import cppyy

    rate = f"{a.rate_gbps}Gbps"
    delay = ns.MicroSeconds(a.link_delay_us)
    dur_s = a.duration_ms / 1e3

    # --- TCP: DCTCP everywhere, an ACK per packet, big buffers --------------
    sd, C = ns.Config.SetDefault, ns
    sd("ns3::TcpL4Protocol::SocketType", C.TypeIdValue(C.TcpDctcp.GetTypeId()))
    sd("ns3::TcpSocket::SegmentSize", C.UintegerValue(SEG_BYTES))
    sd("ns3::TcpSocket::DelAckCount", C.UintegerValue(1))
    sd("ns3::TcpSocket::InitialCwnd", C.UintegerValue(10))
    sd("ns3::TcpSocket::SndBufSize", C.UintegerValue(1 << 24))
    sd("ns3::TcpSocket::RcvBufSize", C.UintegerValue(1 << 24))
    sd("ns3::TcpSocketBase::Timestamp", C.BooleanValue(True))
    # --- RED as DCTCP step marking (only the bottleneck uses RED) ----------
    sd("ns3::RedQueueDisc::MinTh", C.DoubleValue(a.k_pkts))
    sd("ns3::RedQueueDisc::MaxTh", C.DoubleValue(a.k_pkts))
    sd("ns3::RedQueueDisc::QW", C.DoubleValue(1.0))
    sd("ns3::RedQueueDisc::Gentle", C.BooleanValue(False))  # else MinTh = MaxTh marks with p = MaxP, not 1
    sd("ns3::RedQueueDisc::UseEcn", C.BooleanValue(True))
    sd("ns3::RedQueueDisc::UseHardDrop", C.BooleanValue(False))
    sd("ns3::RedQueueDisc::MeanPktSize", C.UintegerValue(1500))
    sd("ns3::RedQueueDisc::LinkBandwidth", C.DataRateValue(C.DataRate(rate)))
    sd("ns3::RedQueueDisc::LinkDelay", C.TimeValue(delay))
    sd("ns3::RedQueueDisc::MaxSize", C.QueueSizeValue(C.QueueSize(f"{max(1000, 4 * a.k_pkts)}p")))

    # --- topology -----------------------------------------------------------
    senders, sw_r = ns.NodeContainer(a.senders), ns.NodeContainer(2)
    S, R = sw_r.Get(0), sw_r.Get(1)
    ns.InternetStackHelper().Install(ns.NodeContainer(senders, sw_r))

    edge, neck = ns.PointToPointHelper(), ns.PointToPointHelper()  # sender links; bottleneck
    for h in (edge, neck):
        h.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        h.SetChannelAttribute("Delay", ns.TimeValue(delay))
    # bottleneck: a 1-packet device queue, so the queue builds in RED (sender links: default)
    neck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue("1p"))

    neck_devs = neck.Install(S, R)  # device 0 at S (toward R), device 1 at R
    tch = ns.TrafficControlHelper()
    tch.SetRootQueueDisc("ns3::RedQueueDisc")
    red = tch.Install(neck_devs.Get(0)).Get(0)  # before addressing, which installs fq_codel
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    r_addr = addr.Assign(neck_devs).GetAddress(1)
    keep = [neck_devs]
    for i in range(a.senders):
        devs = edge.Install(senders.Get(i), S)
        addr.SetBase(ns.Ipv4Address(f"10.1.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(devs)
        keep.append(devs)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    # --- applications: one sink at R, one unlimited BulkSend per sender -----
    port = 5000
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory",
                               ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_apps = sink.Install(R)
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(r_addr, port).ConvertTo())
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))         # unlimited
    bulk.SetAttribute("SendSize", ns.UintegerValue(SEG_BYTES))  # one socket write per segment
    send_apps = bulk.Install(senders)
    for apps in (sink_apps, send_apps):
        apps.Start(ns.Seconds(0.0))
        apps.Stop(ns.Seconds(dur_s))

    # --- C++ probes -----------------------------------------------------------
    probe = None
    if not a.no_probes:
        cppyy.cppdef(PROBE_CPP)
        probe = cppyy.gbl.ldcp_ns3.Probe()
        probe.qd = red
        probe.period = ns.MicroSeconds(1)
        probe.half = ns.Seconds(dur_s / 2)
        probe.Attach(neck_devs.Get(1), WARMUP_MS / 1e3)

    # --- run: only this is wall_s_run --------------------------------------
    ns.Simulator.Stop(ns.Seconds(dur_s))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall_run = time.perf_counter() - t0

    sink_bytes = int(ns.DynamicCast[ns.PacketSink](sink_apps.Get(0)).GetTotalRx())
    stats = red.GetStats()
    out = {
        "simulator": "ns-3",
        "ns3_version": version("ns3"),
        "senders": a.senders,
        "rate_gbps": a.rate_gbps,
        "link_delay_us": a.link_delay_us,
        "k_pkts": a.k_pkts,
        "duration_ms": a.duration_ms,
        "flow_start": "all flows start at t = 0 exactly (no stagger)",
        "tcp_segment_bytes": SEG_BYTES,
        "wall_s_run": round(wall_run, 4),
        "sink_rx_bytes": sink_bytes,
        "marked_pkts": int(stats.nTotalMarkedPackets),
        "dropped_pkts_red": int(stats.nTotalDroppedPackets),
    }
    if probe is None:
        out.update({
            "packet_bytes": SEG_BYTES + 52,
            "delivered_pkts": sink_bytes // SEG_BYTES,
            "delivered_counted_at": "R's PacketSink: received payload bytes / segment size",
            "probes": "off (--no-probes): no queue sampling, no per-packet counting",
        })
    else:
        q = sorted(probe.q)
        half_s = dur_s / 2
        out.update({
            "packet_bytes": int(probe.ipMax),
            "packet_bytes_min": int(probe.ipMin),
            "delivered_pkts": int(probe.dataPkts),
            "delivered_counted_at": "R's bottleneck NetDevice (PhyRxEnd): packets with TCP payload",
            "acks_sent_by_R": int(probe.acks),
            "acks_per_data_pkt": round(int(probe.acks) / max(1, int(probe.dataPkts)), 4),
            "utilization": round(int(probe.ipBytesHalf2) * 8 / (a.rate_gbps * 1e9 * half_s), 4),
            "utilization_counted": "IP bytes of all packets received at R in the second half / "
                                   "(rate x half duration)",
            "queue_p50_pkts": pct(q, 50),
            "queue_p99_pkts": pct(q, 99),
            "queue_max_pkts": q[-1] if q else None,
            "queue_samples": len(q),
            "queue_sampling": f"RED queue disc GetNPackets() every 1 us of simulated time from "
                              f"{WARMUP_MS} ms to the end, by a C++ event (cost inside wall_s_run)",
            "probes": "on: C++ only, no Python per event during Run()",
        })
    ns.Simulator.Destroy()
    out["wall_s_total"] = round(time.perf_counter() - T_START, 4)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
