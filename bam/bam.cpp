#include "bam/bam.h"

#include "model/trace.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <bitset>
#include <cstring>

namespace qcesim::bam {

using model::Register;
using sc_core::SC_ZERO_TIME;

const char* pipe_error_name(PipeError e) {
  switch (e) {
    case PipeError::none:
      return "none";
    case PipeError::ring_size_invalid:
      return "ring_size_invalid";
    case PipeError::ring_address_invalid:
      return "ring_address_invalid";
    case PipeError::doorbell_out_of_ring:
      return "doorbell_out_of_ring";
    case PipeError::desc_size_zero:
      return "desc_size_zero";
    case PipeError::desc_size_too_big:
      return "desc_size_too_big";
    case PipeError::desc_address_invalid:
      return "desc_address_invalid";
    case PipeError::axi_error:
      return "axi_error";
    case PipeError::cmd_on_producer:
      return "cmd_on_producer";
    case PipeError::cmd_size_invalid:
      return "cmd_size_invalid";
    case PipeError::ce_address_unmapped:
      return "ce_address_unmapped";
    case PipeError::ce_command_invalid:
      return "ce_command_invalid";
    case PipeError::ce_read_dest_invalid:
      return "ce_read_dest_invalid";
  }
  return "?";
}

SC_HAS_PROCESS(Bam);

Bam::Bam(sc_core::sc_module_name name, const BamConfig& cfg)
    : sc_core::sc_module(name),
      regs_socket("regs_socket"),
      bus_socket("bus_socket"),
      peripheral("peripheral"),
      irq("irq", cfg.num_ees),
      m_cfg(cfg),
      m_fault_rng(cfg.faults.seed),
      m_regs(std::string(this->name()) + ".regs"),
      m_pipes(cfg.num_pipes) {
  if (cfg.num_ees == 0 || cfg.num_ees > kMaxEes || cfg.num_pipes == 0 || cfg.num_pipes > 32)
    throw std::invalid_argument("BAM: num_ees must be 1.." + std::to_string(kMaxEes) + " and num_pipes 1..32");
  regs_socket.register_b_transport(this, &Bam::b_transport);
  regs_socket.register_transport_dbg(this, &Bam::transport_dbg);
  bus_socket.register_invalidate_direct_mem_ptr(this, &Bam::invalidate_dmi);
  build_registers();
  for (unsigned ee = 0; ee < m_cfg.num_ees; ++ee) m_lines.push_back(std::make_unique<Line>());

  for (unsigned p = 0; p < m_cfg.num_pipes; ++p) {
    m_pipes[p].index = p;
    sc_core::sc_spawn(sc_bind(&Bam::pipe_thread, this, p), (std::string("pipe") + std::to_string(p)).c_str());
  }
}

void Bam::build_registers() {
  using model::Access;
  m_ctrl = &m_regs.add("BAM_CTRL", BAM_CTRL, 0).writes(this, &Bam::write_BAM_CTRL);
  m_regs.add("BAM_DESC_CNT_TRSHLD", BAM_DESC_CNT_TRSHLD, 0xFFFF);
  m_regs.add("BAM_IRQ_STTS", BAM_IRQ_STTS, 0, Access::ro);
  m_regs.add("BAM_IRQ_CLR", BAM_IRQ_CLR, 0, Access::wo);
  m_regs.add("BAM_IRQ_EN", BAM_IRQ_EN, 0);
  m_regs.add("BAM_CNFG_BITS", BAM_CNFG_BITS, 0);
  m_regs.add("BAM_REVISION", BAM_REVISION, m_cfg.revision, Access::ro);
  m_regs.add("BAM_NUM_PIPES", BAM_NUM_PIPES, m_cfg.num_pipes, Access::ro);
  for (unsigned ee = 0; ee < m_cfg.num_ees; ++ee) {
    const std::string sfx = std::to_string(ee);
    m_regs.add("BAM_IRQ_SRCS_EE" + sfx, BAM_IRQ_SRCS_EE(ee), 0, Access::ro, ee).reads(this, &Bam::read_IRQ_SRCS_EE);
    m_srcs_msk.push_back(&m_regs.add("BAM_IRQ_SRCS_MSK_EE" + sfx, BAM_IRQ_SRCS_MSK_EE(ee), 0, Access::rw, ee)
                              .writes(this, &Bam::write_IRQ_SRCS_MSK_EE));
  }
  for (unsigned p = 0; p < m_cfg.num_pipes; ++p) {
    Pipe& pp = m_pipes[p];
    const std::string sfx = "[" + std::to_string(p) + "]";
    pp.ctrl = &m_regs.add("BAM_P_CTRL" + sfx, BAM_P_CTRL(p), 0, Access::rw, p).writes(this, &Bam::write_P_CTRL);
    m_regs.add("BAM_P_RST" + sfx, BAM_P_RST(p), 0, Access::wo, p).writes(this, &Bam::write_P_RST);
    m_regs.add("BAM_P_HALT" + sfx, BAM_P_HALT(p), 0, Access::rw, p);
    pp.irq_stts = &m_regs.add("BAM_P_IRQ_STTS" + sfx, BAM_P_IRQ_STTS(p), 0, Access::ro, p);
    m_regs.add("BAM_P_IRQ_CLR" + sfx, BAM_P_IRQ_CLR(p), 0, Access::wo, p).writes(this, &Bam::write_P_IRQ_CLR);
    pp.irq_en = &m_regs.add("BAM_P_IRQ_EN" + sfx, BAM_P_IRQ_EN(p), 0, Access::rw, p).writes(this, &Bam::write_P_IRQ_EN);
    pp.trust = &m_regs.add("BAM_P_TRUST_REG" + sfx, BAM_P_TRUST_REG(p), m_cfg.pipe_owner_ee, Access::rw, p)
                    .writes(this, &Bam::write_P_TRUST_REG);
    pp.sw_ofsts = &m_regs.add("BAM_P_SW_OFSTS" + sfx, BAM_P_SW_OFSTS(p), 0, Access::ro, p);
    pp.evnt =
        &m_regs.add("BAM_P_EVNT_REG" + sfx, BAM_P_EVNT_REG(p), 0, Access::rw, p).writes(this, &Bam::write_P_EVNT_REG);
    pp.fifo_addr = &m_regs.add("BAM_P_DESC_FIFO_ADDR" + sfx, BAM_P_DESC_FIFO_ADDR(p), 0, Access::rw, p);
    pp.fifo_sizes = &m_regs.add("BAM_P_FIFO_SIZES" + sfx, BAM_P_FIFO_SIZES(p), 0, Access::rw, p);
    m_regs.add("BAM_P_EVNT_GEN_TRSHLD" + sfx, BAM_P_EVNT_GEN_TRSHLD(p), 0, Access::rw, p);
  }
}

// ---------------------------------------------------------------------------------------------
// The registers' named handlers (a banked register's tag is its EE or pipe)

// BAM_SW_RST resets the whole BAM (bam_init writes it 1 then 0 before BAM_EN): every register
// back to its reset value, every pipe idle and empty, the lock free, the lines low.
void Bam::write_BAM_CTRL(Register& r, std::uint32_t v) {
  const bool rising = (v & BAM_SW_RST) && !(r.value & BAM_SW_RST);
  if (rising) reset();
  r.value = v;
}

std::uint32_t Bam::read_IRQ_SRCS_EE(Register& r) { return irq_sources()[r.tag]; }

void Bam::write_IRQ_SRCS_MSK_EE(Register& r, std::uint32_t v) {
  r.value = v;
  update_irq();
}

void Bam::write_P_CTRL(Register& r, std::uint32_t v) {
  r.value = v;
  m_pipes[r.tag].kick.notify();
}

void Bam::write_P_RST(Register& r, std::uint32_t v) {
  if (v & 1u) reset_pipe(r.tag);
}

void Bam::write_P_IRQ_CLR(Register& r, std::uint32_t v) {
  m_pipes[r.tag].irq_stts->value &= ~v;
  update_irq();
}

void Bam::write_P_IRQ_EN(Register& r, std::uint32_t v) {
  r.value = v;
  update_irq();
}

void Bam::write_P_TRUST_REG(Register& r, std::uint32_t v) {
  r.value = v & 0x7u;
  update_irq();
  notify_lock_changed();
}

void Bam::write_P_EVNT_REG(Register& r, std::uint32_t v) { on_doorbell(m_pipes[r.tag], v); }

void Bam::reset() {
  for (Pipe& pp : m_pipes) reset_pipe(pp.index);
  m_regs.reset();  // BAM_CTRL included: the caller's write lands after
  update_irq();
}

unsigned Bam::pipe_ee(unsigned pipe) const { return m_pipes.at(pipe).trust->value & 0x7u; }

void Bam::fingerprint(model::StateHash& h) const {
  for (const Pipe& pp : m_pipes) {
    const std::uint32_t rs = ring_size(pp);
    const std::uint32_t pending = rs ? (pp.write_off + rs - pp.read_off) % rs : pp.write_off;
    h.add(std::uint64_t{pp.ctrl->value});
    h.add(std::uint64_t{pending});
    h.add(pp.fresh);
    // A pipe nobody uses: nothing more to tell.
    if (pp.ctrl->value == 0 && pp.irq_stts->value == 0 && pending == 0 && pp.waiting_work) continue;
    h.add(std::uint64_t{pp.irq_stts->value});
    h.add(std::uint64_t{pp.irq_en->value});
    h.add(std::uint64_t{pp.trust->value});
    h.add(std::uint64_t{static_cast<unsigned>(pp.error)});
    h.add(pp.waiting_work);
    if (!pp.waiting_work) {  // a run in progress; an idle pipe sets these afresh at its next fetch
      h.add_at(pp.fetched_at);
      h.add(std::uint64_t{pp.run.size()});
      h.add(pp.run_plain);
      h.add(std::uint64_t{pp.ce_done});
      h.add(pp.waiting_peripheral);
      h.add(pp.waiting_lock);
    }
  }
  for (const model::Register* r : m_srcs_msk) h.add(std::uint64_t{r->value});  // which pipes interrupt each EE
  h.add(m_lock.held);
  if (m_lock.held) {
    h.add(std::uint64_t{m_lock.ee});
    h.add(std::uint64_t{m_lock.group});
    h.add(std::uint64_t{m_lock.pipe});
  }
  for (const auto& l : m_lines) {
    h.add(l->high);
    if (l->delivery_due() >= h.now()) h.add_at(l->delivery_due());  // a delivery to come
  }
}

void Bam::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) { m_regs.transport(trans); }

unsigned int Bam::transport_dbg(tlm::tlm_generic_payload& trans) {
  m_regs.transport(trans);
  return trans.is_response_ok() ? trans.get_data_length() : 0u;
}

// ---------------------------------------------------------------------------------------------
// Doorbell, reset, errors, interrupts

void Bam::on_doorbell(Pipe& pp, std::uint32_t value) {
  pp.evnt->value = value;
  if (pp.error != PipeError::none) return;  // a failed pipe stays stopped until P_RST
  const std::uint32_t rs = ring_size(pp);
  if (rs < 16 || rs > BAM_DESC_FIFO_SIZE || rs % sizeof(BamDescHw) != 0) {
    fail(pp, PipeError::ring_size_invalid,
         "P_FIFO_SIZES ring size " + std::to_string(rs) + " bytes (expected 16..32768, a multiple of 8)");
    return;
  }
  if (value >= rs || value % sizeof(BamDescHw) != 0) {
    fail(pp, PipeError::doorbell_out_of_ring,
         "P_EVNT_REG offset " + std::to_string(value) + " outside a ring of " + std::to_string(rs) + " bytes (" +
             std::to_string(rs / sizeof(BamDescHw) - 1) + " usable descriptors)");
    return;
  }
  pp.write_off = value;
  pp.kick.notify();
}

void Bam::reset_pipe(unsigned pipe) {
  Pipe& pp = m_pipes.at(pipe);
  ++pp.generation;
  pp.read_off = pp.write_off = 0;
  pp.error = PipeError::none;
  pp.error_detail.clear();
  for (model::Register* r : {pp.ctrl, pp.irq_stts, pp.irq_en, pp.sw_ofsts, pp.evnt, pp.fifo_addr, pp.fifo_sizes})
    r->value = r->reset;
  if (m_lock.held && m_lock.pipe == pp.index) {
    m_lock.held = false;
    notify_lock_changed();
  }
  pp.kick.notify(SC_ZERO_TIME);
  update_irq();
}

void Bam::fail(Pipe& pp, PipeError e, const std::string& detail) {
  pp.error = e;
  pp.error_detail = detail;
  spdlog::debug("{}: pipe {} error {}: {}", name(), pp.index, pipe_error_name(e), detail);
  raise(pp, P_ERR);
}

void Bam::raise(Pipe& pp, std::uint32_t bits) {
  pp.stats.irq_events += std::bitset<32>(bits).count();
  pp.irq_stts->value |= bits;
  update_irq();
}

// BAM_IRQ_SRCS_EEn for every EE in one pass over the pipes.
Bam::IrqSources Bam::irq_sources() const {
  IrqSources srcs{};
  for (const Pipe& pp : m_pipes) {
    const unsigned ee = pp.trust->value & 0x7u;
    if ((pp.irq_stts->value & pp.irq_en->value) != 0) srcs[ee] |= 1u << pp.index;
  }
  return srcs;
}

// One event per pipe, no event or-lists (which allocate on every wait): lock changes and the
// peripheral's state changes are forwarded to the pipes' kicks. A lock change matters only to
// pipes held back by it: idle with descriptors pending, or at a LOCK (an idle pipe without
// work is kicked by its doorbell).
void Bam::notify_lock_changed() {
  for (Pipe& pp : m_pipes)
    if ((pp.waiting_work && pipe_has_work(pp)) || pp.waiting_lock) pp.kick.notify();
  if (auto* tr = model::Tracer::active())
    tr->counter(tr->track("BAM", "lock owner (EE, -1 free)", "lock"), sc_core::sc_time_stamp(),
                m_lock.held ? static_cast<double>(m_lock.ee) : -1.0);
}

void Bam::wait_peripheral(Pipe& pp) {
  pp.waiting_peripheral = true;
  sc_core::wait(pp.kick);
  pp.waiting_peripheral = false;
}

void Bam::end_of_elaboration() {
  peripheral->bam_set_state_listener([this] {
    for (Pipe& pp : m_pipes)
      if (pp.waiting_peripheral) pp.kick.notify();
  });
}

// The level is known at once (the GIC samples it) and the output ports follow it at once.
// Runs on every status, enable, mask or trust change, so it makes one pass over the pipes for
// all EEs and drives the ports only when a level changes.
void Bam::update_irq() {
  const IrqSources srcs = irq_sources();
  bool changed = false;
  for (unsigned ee = 0; ee < m_cfg.num_ees; ++ee) {
    const bool high = (srcs[ee] & m_srcs_msk[ee]->value) != 0;
    if (high == m_lines[ee]->high) continue;
    if (high) {
      m_lines[ee]->rise.notify(SC_ZERO_TIME);
      m_lines[ee]->rising_edge();
    }
    m_lines[ee]->high = high;
    changed = true;
    if (auto* tr = model::Tracer::active())
      tr->counter(tr->track("IRQ", fmt::format("bam_irq EE {}", ee), "irq"), sc_core::sc_time_stamp(), high ? 1 : 0);
  }
  if (changed && sc_core::sc_is_running()) drive_irq();
}

// The output ports follow the levels. Any process may change a level, so the lines are
// unchecked-writer signals (model/soc.h), driven directly instead of from a method a delta later.
void Bam::drive_irq() {
  for (unsigned ee = 0; ee < m_cfg.num_ees; ++ee) irq[ee].write(m_lines[ee]->high);
}

void Bam::start_of_simulation() { drive_irq(); }

// ---------------------------------------------------------------------------------------------
// Bus helpers

void Bam::invalidate_dmi(sc_dt::uint64, sc_dt::uint64) { m_dmi_valid = false; }

std::uint8_t* Bam::dmi_refresh(std::uint64_t addr, std::uint64_t len, bool write) {
  tlm::tlm_generic_payload t;
  t.set_address(addr);
  t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  tlm::tlm_dmi dmi;
  if (!bus_socket->get_direct_mem_ptr(t, dmi)) return nullptr;
  m_dmi = dmi;
  m_dmi_valid = true;
  if (!dmi_covers(addr, len, write)) return nullptr;
  return m_dmi.get_dmi_ptr() + (addr - m_dmi.get_start_address());
}

bool Bam::bus_access(tlm::tlm_command cmd, std::uint64_t addr, std::uint8_t* data, unsigned len) {
  tlm::tlm_generic_payload& t = m_trans;
  sc_core::sc_time delay = SC_ZERO_TIME;
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  bus_socket->b_transport(t, delay);
  return t.is_response_ok();
}

bool Bam::bus_read(std::uint64_t addr, void* dst, std::uint64_t len) {
  return bus_access(tlm::TLM_READ_COMMAND, addr, static_cast<std::uint8_t*>(dst), static_cast<unsigned>(len));
}

bool Bam::mem_write(std::uint64_t addr, const void* src, std::uint64_t len) {
  if (std::uint8_t* p = dmi_ptr(addr, len, true)) {
    std::memcpy(p, src, len);
    return true;
  }
  std::vector<std::uint8_t> tmp(static_cast<const std::uint8_t*>(src), static_cast<const std::uint8_t*>(src) + len);
  return bus_access(tlm::TLM_WRITE_COMMAND, addr, tmp.data(), static_cast<unsigned>(len));
}

// ---------------------------------------------------------------------------------------------
// Pipe engine

bool Bam::blocked_by_lock(const Pipe& pp) const { return m_lock.held && m_lock.ee != (pp.trust->value & 0x7u); }

bool Bam::pipe_has_work(const Pipe& pp) const {
  return pp.error == PipeError::none && (pp.ctrl->value & P_EN) && pp.read_off != pp.write_off;
}

bool Bam::pipe_runnable(const Pipe& pp) const { return pipe_has_work(pp) && !blocked_by_lock(pp); }

void Bam::pipe_thread(unsigned p) {
  Pipe& pp = m_pipes[p];
  for (;;) {
    while (!pipe_runnable(pp)) {
      const bool by_lock = blocked_by_lock(pp) && pipe_has_work(pp);
      const sc_core::sc_time since = sc_core::sc_time_stamp();
      const unsigned holder = m_lock.ee;
      pp.waiting_work = true;
      sc_core::wait(pp.kick);
      pp.waiting_work = false;
      if (by_lock) {
        pp.stats.lock_wait += sc_core::sc_time_stamp() - since;
        if (auto* tr = model::Tracer::active())
          tr->span(trace_track(pp), fmt::format("waiting for EE {}'s lock", holder), since, sc_core::sc_time_stamp(),
                   tr->request_for_ee(pp.trust->value & 0x7u),
                   "another EE holds the BAM lock: this pipe fetches nothing");
      }
    }
    const std::uint64_t gen = pp.generation;
    const std::uint64_t slot = pp.fifo_addr->value + std::uint64_t{pp.read_off};
    std::uint8_t raw[sizeof(BamDescHw)];
    if (!mem_read(slot, raw, sizeof raw)) {
      fail(pp, PipeError::ring_address_invalid,
           "descriptor fetch at 0x" + fmt::format("{:x}", slot) + " (P_DESC_FIFO_ADDR + " +
               std::to_string(pp.read_off) + ") hit no memory");
      continue;
    }
    BamDescHw d;
    std::memcpy(&d.addr, raw, 4);
    std::memcpy(&d.size, raw + 4, 2);
    std::memcpy(&d.flags, raw + 6, 2);
    // A run of plain command descriptors (the series' register writes) takes its fetch and
    // execution time in one wait before the elements execute in order, so the last write (GO)
    // still lands when it should, at a fraction of the simulator's cost.
    command_run(pp, d);
    const bool cmd = (d.flags & DESC_FLAG_CMD) != 0;
    sc_core::sc_time t = m_cfg.desc_fetch * static_cast<double>(pp.run.size());
    pp.fetched_at = sc_core::sc_time_stamp();
    // IOVA pages mapped since the last descriptor: the SMMU walks for each before the BAM's
    // first access goes through (a new mapping has a new IOVA, so strict and lazy modes alike).
    // Only Linux's pipes: another EE's buffers are mapped by its own world, not this kernel.
    const bool linux_pipe = (pp.trust->value & 0x7u) == m_cfg.pipe_owner_ee;
    if (m_fresh_pages && linux_pipe && m_cfg.iotlb_miss != SC_ZERO_TIME) pp.fresh += m_fresh_pages(!is_producer(pp));
    // Each descriptor of the run walks the fresh pages it touches first: a command element's
    // own page (the series maps each element on its own IOVA page), a data buffer's pages.
    std::uint64_t walks = 0;
    for (const BamDescHw& e : pp.run) {
      if (pp.fresh == 0) break;
      const std::uint64_t touched = (e.flags & DESC_FLAG_CMD)
                                        ? std::max<std::uint64_t>(1, e.size / sizeof(BamCmdElement))
                                        : std::max<std::uint64_t>(1, (e.size + 4095u) / 4096u);
      const std::uint64_t w = std::min(pp.fresh, touched);
      walks += w;
      pp.fresh -= w;
    }
    const sc_core::sc_time walk = m_cfg.iotlb_miss * static_cast<double>(walks);
    if (walks) {
      pp.stats.iotlb_misses += walks;
      if (auto* tr = model::Tracer::active())
        tr->span(trace_track(pp), fmt::format("{} SMMU page walk{}", walks, walks == 1 ? "" : "s"), pp.fetched_at,
                 pp.fetched_at + walk, tr->request_for_ee(pp.trust->value & 0x7u), "iommu.tlb_miss each");
    }
    if (cmd) {
      if (!m_cfg.exact_elements)
        for (const BamDescHw& e : pp.run) t += m_cfg.ce_exec * static_cast<double>(e.size / sizeof(BamCmdElement));
      t += walk;
    } else {
      // A data descriptor's fetch overlaps the wait for the peripheral: the transfer starts at
      // fetched_at at the earliest, one SystemC wait fewer per descriptor.
      pp.fetched_at += t + walk;
      t = SC_ZERO_TIME;
    }
    if (t != SC_ZERO_TIME) {
      sc_core::wait(t);
      if (gen != pp.generation) continue;
    }
    const sc_core::sc_time begin = pp.fetched_at - (cmd ? SC_ZERO_TIME : m_cfg.desc_fetch);
    pp.ce_done = 0;
    if (pp.run_plain && execute_run_writes(pp)) {
      complete_plain_run(pp);
    } else {
      for (const BamDescHw& e : pp.run)
        if (!process_descriptor(pp, e, gen, cmd)) break;
    }
    if (model::Tracer::active()) trace_run(pp, begin, cmd);
  }
}

int Bam::trace_track(const Pipe& pp) const {
  return model::Tracer::active()->track(
      "BAM",
      fmt::format("pipe {} (EE {}, {})", pp.index, pp.trust->value & 0x7u, is_producer(pp) ? "producer" : "consumer"),
      "bam");
}

void Bam::trace_run(const Pipe& pp, const sc_core::sc_time& begin, bool cmd) {
  model::Tracer& tr = *model::Tracer::active();
  const int track = trace_track(pp);
  std::string flags;
  std::uint32_t bytes = 0, elements = 0;
  for (const BamDescHw& e : pp.run) {
    for (const auto& [bit, name] : {std::pair{DESC_FLAG_LOCK, "LOCK"},
                                    {DESC_FLAG_UNLOCK, "UNLOCK"},
                                    {DESC_FLAG_NWD, "NWD"},
                                    {DESC_FLAG_EOT, "EOT"},
                                    {DESC_FLAG_INT, "INT"}})
      if ((e.flags & bit) && flags.find(name) == std::string::npos)
        flags += std::string(flags.empty() ? "" : "+") + name;
    bytes += e.size;
    elements += e.size / static_cast<std::uint32_t>(sizeof(BamCmdElement));
  }
  std::string name = cmd ? fmt::format("{}{}{} register writes)", pp.run.size(), model::kBamCmdRunSpan, elements)
                         : fmt::format("{} B{}", bytes, is_producer(pp) ? model::kBamFromQceSpan : " data to QCE");
  if (!flags.empty()) name += " " + flags;
  const std::string detail =
      cmd ? fmt::format("descriptor fetch {} each, command elements {} each (element fetch {} + register write {})",
                        m_cfg.desc_fetch.to_string(), m_cfg.ce_exec.to_string(), m_cfg.ce_fetch.to_string(),
                        m_cfg.ce_write.to_string())
          : fmt::format("descriptor fetch {}, then 64-byte bursts at {} each", m_cfg.desc_fetch.to_string(),
                        m_cfg.burst.to_string());
  tr.span(track, std::move(name), begin, sc_core::sc_time_stamp(), tr.request_for_ee(pp.trust->value & 0x7u), detail);
}

// Fills pp.run with the descriptors handled with one wait, `first` and those after it: a run
// of command descriptors with no LOCK (unless the lock is free to take), UNLOCK, NWD, EOT or
// INT; otherwise `first` alone.
void Bam::command_run(Pipe& pp, const BamDescHw& first) {
  constexpr std::uint16_t stop = DESC_FLAG_UNLOCK | DESC_FLAG_NWD | DESC_FLAG_EOT | DESC_FLAG_INT;
  auto plain_cmd = [&](const BamDescHw& e) {
    return (e.flags & DESC_FLAG_CMD) && !(e.flags & stop) && e.size > 0 && e.size <= BAM_FIFO_SIZE &&
           e.size % sizeof(BamCmdElement) == 0 && !is_producer(pp);
  };
  pp.run.clear();
  pp.run.push_back(first);
  pp.run_plain = false;
  if (m_cfg.exact_elements || !plain_cmd(first)) return;
  if ((first.flags & DESC_FLAG_LOCK) && m_lock.held && m_lock.ee != (pp.trust->value & 0x7u)) return;
  pp.run_plain = true;
  const std::uint32_t rs = ring_size(pp);
  for (std::uint32_t off = (pp.read_off + BAM_DESC_BYTES) % rs; off != pp.write_off && pp.run.size() < 256;
       off = (off + BAM_DESC_BYTES) % rs) {
    BamDescHw e;
    if (!mem_read(pp.fifo_addr->value + std::uint64_t{off}, &e, sizeof e)) break;
    if (!plain_cmd(e) || (e.flags & DESC_FLAG_LOCK)) break;
    pp.run.push_back(e);
  }
}

// A plain run's command elements land at one instant, in order, with nothing else running in
// between, so they go out ahead of their descriptors' bookkeeping in as few bus transactions
// as possible: writes to consecutive registers as one burst (the simulator's cost is per
// transaction; the registers see the same writes in the same order). Counts in pp.ce_done the
// leading elements of the run that went out and returns whether that is all of them; the rest
// (a read, a masked write, a burst the bus refuses: nothing of it was written) run element by
// element, where errors are reported.
bool Bam::execute_run_writes(Pipe& pp) {
  constexpr unsigned kMaxBurst = 16;
  std::array<std::uint32_t, kMaxBurst> words{};
  unsigned k = 0;
  std::uint32_t base = 0;
  auto flush = [&] {
    if (k && bus_access(tlm::TLM_WRITE_COMMAND, base, reinterpret_cast<std::uint8_t*>(words.data()), 4 * k)) {
      pp.ce_done += k;
      k = 0;
    }
    return k == 0;
  };
  for (const BamDescHw& d : pp.run) {
    for (unsigned i = 0; i < d.size / sizeof(BamCmdElement); ++i) {
      BamCmdElement ce;
      if (!mem_read(std::uint64_t{d.addr} + i * sizeof(BamCmdElement), &ce, sizeof ce) ||
          (ce.cmd_and_addr >> 24) != BAM_WRITE_COMMAND || ce.mask != 0xFFFFFFFFu) {
        flush();
        return false;
      }
      const std::uint32_t target = (m_cfg.ce_addr_base & ~BAM_CE_ADDR_MASK) | (ce.cmd_and_addr & BAM_CE_ADDR_MASK);
      if (k && (k == kMaxBurst || target != base + 4 * k) && !flush()) return false;
      if (k == 0) base = target;
      words[k++] = ce.data;
    }
  }
  return flush();
}

// LOCK: from here on the BAM serves only this pipe's EE until UNLOCK.
void Bam::take_lock(const Pipe& pp) {
  m_lock = {true, pp.trust->value & 0x7u, (pp.ctrl->value & P_LOCK_GROUP_MASK) >> P_LOCK_GROUP_SHIFT, pp.index};
  notify_lock_changed();
}

// Every element of a plain run has landed: its descriptors complete together, as
// process_descriptor would one by one (none has INT, EOT, NWD or UNLOCK; a LOCK can only be
// the first, and the lock is free).
void Bam::complete_plain_run(Pipe& pp) {
  if (pp.run.front().flags & DESC_FLAG_LOCK) take_lock(pp);
  const auto n = static_cast<std::uint32_t>(pp.run.size());
  pp.read_off = (pp.read_off + n * static_cast<std::uint32_t>(sizeof(BamDescHw))) % ring_size(pp);
  pp.sw_ofsts->value = pp.read_off;
  pp.stats.descriptors += n;
  pp.stats.cmd_descriptors += n;
  pp.stats.command_elements += pp.ce_done;
  pp.ce_done = 0;
}

bool Bam::process_descriptor(Pipe& pp, const BamDescHw& d, std::uint64_t gen, bool prepaid) {
  const std::uint32_t slot_index = pp.read_off / BAM_DESC_BYTES;
  // Only the error paths need the text.
  const auto where = [slot_index] { return "descriptor " + std::to_string(slot_index); };
  if (d.size == 0) {
    fail(pp, PipeError::desc_size_zero, where() + " has size 0");
    return false;
  }
  if (d.size > BAM_FIFO_SIZE) {
    fail(pp, PipeError::desc_size_too_big, where() + " has size " + std::to_string(d.size) + " (max 32760)");
    return false;
  }
  const bool cmd = (d.flags & DESC_FLAG_CMD) != 0;
  if (cmd && is_producer(pp)) {
    fail(pp, PipeError::cmd_on_producer, where() + " is a command descriptor on a producer pipe");
    return false;
  }
  if (cmd && d.size % sizeof(BamCmdElement) != 0) {
    fail(pp, PipeError::cmd_size_invalid,
         where() + " command size " + std::to_string(d.size) + " not a multiple of 16");
    return false;
  }

  const unsigned ee = pp.trust->value & 0x7u;
  if (d.flags & DESC_FLAG_LOCK) {
    // LOCK: from here on the BAM serves only this EE's pipes until UNLOCK.
    while (m_lock.held && m_lock.ee != ee) {
      const sc_core::sc_time since = sc_core::sc_time_stamp();
      pp.waiting_lock = true;
      sc_core::wait(pp.kick);
      pp.waiting_lock = false;
      pp.stats.lock_wait += sc_core::sc_time_stamp() - since;
      if (gen != pp.generation) return false;
    }
    take_lock(pp);
  }

  bool peripheral_eot = false;
  bool ok;
  if (cmd) {
    ok = run_command_elements(pp, d, prepaid);
  } else if (is_producer(pp)) {
    ok = produce_data(pp, d, slot_index, gen, peripheral_eot);
  } else {
    if (m_cfg.faults.any() && !inject_fault(pp, d, gen)) return false;
    ok = consume_data(pp, d, gen);
  }
  if (!ok || gen != pp.generation) return false;

  if ((d.flags & DESC_FLAG_UNLOCK) && m_lock.held && m_lock.ee == ee) {
    m_lock.held = false;
    notify_lock_changed();
  }

  pp.read_off = (pp.read_off + static_cast<std::uint32_t>(sizeof(BamDescHw))) % ring_size(pp);
  pp.sw_ofsts->value = pp.read_off;
  ++pp.stats.descriptors;
  std::uint32_t bits = 0;
  if (d.flags & DESC_FLAG_INT) bits |= P_PRCSD_DESC;
  if ((d.flags & DESC_FLAG_EOT) || peripheral_eot) bits |= P_TRNSFR_END;
  if (bits) raise(pp, bits);

  if (d.flags & DESC_FLAG_NWD) {
    // Next descriptor waits until the peripheral has finished this transaction.
    while (!peripheral->bam_transaction_done(pp.index)) {
      wait_peripheral(pp);
      if (gen != pp.generation) return false;
    }
  }
  return true;
}

// Fault injection on a data descriptor toward the peripheral: false when the descriptor ends in
// an error (P_ERR) or is lost (the pipe waits at it until reset), true to go on normally.
bool Bam::inject_fault(Pipe& pp, const BamDescHw& d, std::uint64_t gen) {
  const double u = std::uniform_real_distribution<double>(0, 1)(m_fault_rng);
  if (u < m_cfg.faults.data_error) {
    ++pp.stats.injected_errors;
    fail(pp, PipeError::axi_error,
         fmt::format("descriptor {}: bus error reading {} bytes at 0x{:x} (injected)", pp.read_off / BAM_DESC_BYTES,
                     d.size, d.addr));
    return false;
  }
  if (u < m_cfg.faults.data_error + m_cfg.faults.drop) {
    ++pp.stats.injected_drops;
    spdlog::debug("{}: pipe {} drops descriptor {} (injected)", name(), pp.index, pp.read_off / BAM_DESC_BYTES);
    while (gen == pp.generation) sc_core::wait(pp.kick);
    return false;
  }
  return true;
}

bool Bam::run_command_elements(Pipe& pp, const BamDescHw& d, bool prepaid) {
  ++pp.stats.cmd_descriptors;
  const unsigned n = d.size / sizeof(BamCmdElement);
  // The elements take their bus time first, so the last one (GO) lands when it should; exactly,
  // each lands after its own execution time.
  const bool each = m_cfg.exact_elements && m_cfg.ce_exec != SC_ZERO_TIME;
  if (!prepaid && !each && m_cfg.ce_exec != SC_ZERO_TIME) sc_core::wait(m_cfg.ce_exec * n);
  const std::uint64_t gen = pp.generation;
  for (unsigned i = 0; i < n; ++i) {
    if (pp.ce_done) {  // went out with the run's burst writes
      --pp.ce_done;
      ++pp.stats.command_elements;
      continue;
    }
    if (each) {
      sc_core::wait(m_cfg.ce_exec);
      if (gen != pp.generation) return false;  // reset meanwhile
    }
    BamCmdElement ce;
    const std::uint64_t ce_addr = std::uint64_t{d.addr} + i * sizeof(BamCmdElement);
    if (!mem_read(ce_addr, &ce, sizeof ce)) {
      fail(pp, PipeError::desc_address_invalid,
           fmt::format("command element {} at 0x{:x} is outside memory", i, ce_addr));
      return false;
    }
    const std::uint32_t cmd = ce.cmd_and_addr >> 24;
    const std::uint32_t target = (m_cfg.ce_addr_base & ~BAM_CE_ADDR_MASK) | (ce.cmd_and_addr & BAM_CE_ADDR_MASK);
    ++pp.stats.command_elements;
    if (cmd == BAM_WRITE_COMMAND) {
      std::uint32_t value = ce.data;
      if (ce.mask != 0xFFFFFFFFu) {
        std::uint32_t old = 0;
        if (!bus_access(tlm::TLM_READ_COMMAND, target, reinterpret_cast<std::uint8_t*>(&old), 4)) {
          fail(pp, PipeError::ce_address_unmapped,
               fmt::format("command element {} reads 0x{:x}: nothing there", i, target));
          return false;
        }
        value = (old & ~ce.mask) | (ce.data & ce.mask);
      }
      if (!bus_access(tlm::TLM_WRITE_COMMAND, target, reinterpret_cast<std::uint8_t*>(&value), 4)) {
        fail(pp, PipeError::ce_address_unmapped,
             fmt::format("command element {} writes 0x{:x}: nothing there", i, target));
        return false;
      }
    } else if (cmd == BAM_READ_COMMAND) {
      std::uint32_t value = 0;
      if (!bus_access(tlm::TLM_READ_COMMAND, target, reinterpret_cast<std::uint8_t*>(&value), 4)) {
        fail(pp, PipeError::ce_address_unmapped,
             fmt::format("command element {} reads 0x{:x}: nothing there", i, target));
        return false;
      }
      if (!mem_write(ce.data, &value, 4)) {
        fail(pp, PipeError::ce_read_dest_invalid,
             fmt::format("command element {} stores to 0x{:x}: outside memory", i, ce.data));
        return false;
      }
    } else {
      fail(pp, PipeError::ce_command_invalid, fmt::format("command element {} has command {}", i, cmd));
      return false;
    }
  }
  return true;
}

bool Bam::consume_data(Pipe& pp, const BamDescHw& d, std::uint64_t gen) {
  const std::uint32_t len = d.size;
  const std::uint8_t* src = dmi_ptr(d.addr, len, false);
  std::uint8_t burst[BAM_BURST_BYTES];
  std::uint32_t done = 0;
  while (done < len) {
    std::size_t n = len - done;
    const std::uint8_t* p;
    if (src) {
      p = src + done;
    } else {
      // No DMI: fetch one 64-byte burst at a time over the bus.
      n = std::min<std::size_t>(n, BAM_BURST_BYTES);
      if (!bus_access(tlm::TLM_READ_COMMAND, std::uint64_t{d.addr} + done, burst, static_cast<unsigned>(n))) {
        fail(pp, PipeError::desc_address_invalid,
             fmt::format("data at 0x{:x} ({} bytes) is outside memory", d.addr, len));
        return false;
      }
      p = burst;
    }
    const bool desc_end = done + n == len, eot = (d.flags & DESC_FLAG_EOT) && desc_end;
    sc_core::sc_time delivered = sc_core::sc_time_stamp();
    const std::size_t took = peripheral->bam_din(pp.index, p, n, desc_end, eot, pp.fetched_at, m_cfg.burst, delivered);
    if (took == 0) {
      wait_peripheral(pp);
      if (gen != pp.generation) return false;
      continue;
    }
    done += static_cast<std::uint32_t>(took);
    pp.stats.bytes += took;
    if (delivered > sc_core::sc_time_stamp()) {
      sc_core::wait(delivered - sc_core::sc_time_stamp());
      if (gen != pp.generation) return false;
    }
  }
  pp.stats.bursts += (len + BAM_BURST_BYTES - 1) / BAM_BURST_BYTES;
  return true;
}

bool Bam::produce_data(Pipe& pp, const BamDescHw& d, std::uint32_t ring_slot, std::uint64_t gen, bool& peripheral_eot) {
  const std::uint32_t len = d.size;
  std::uint8_t* dst = dmi_ptr(d.addr, len, true);
  std::uint8_t burst[BAM_BURST_BYTES];
  std::uint32_t done = 0;
  while (done < len) {
    bool eot = false;
    const std::size_t room = dst ? len - done : std::min<std::size_t>(len - done, BAM_BURST_BYTES);
    const std::size_t n = peripheral->bam_dout(pp.index, dst ? dst + done : burst, room, eot);
    if (n && !dst &&
        !bus_access(tlm::TLM_WRITE_COMMAND, std::uint64_t{d.addr} + done, burst, static_cast<unsigned>(n))) {
      fail(pp, PipeError::desc_address_invalid, fmt::format("result buffer at 0x{:x} is outside memory", d.addr));
      return false;
    }
    done += static_cast<std::uint32_t>(n);
    pp.stats.bytes += n;
    if (n) {
      const sc_core::sc_time end = std::max(pp.fetched_at, sc_core::sc_time_stamp()) +
                                   m_cfg.burst * static_cast<double>((n + BAM_BURST_BYTES - 1) / BAM_BURST_BYTES);
      if (end > sc_core::sc_time_stamp()) {
        sc_core::wait(end - sc_core::sc_time_stamp());
        if (gen != pp.generation) return false;
      }
    }
    if (eot) {
      peripheral_eot = true;
      break;
    }
    if (n == 0) {
      wait_peripheral(pp);
      if (gen != pp.generation) return false;
    }
  }
  pp.stats.bursts += (done + BAM_BURST_BYTES - 1) / BAM_BURST_BYTES;
  if (done < len) {
    // The peripheral ended the transfer early: report the bytes written in the descriptor's
    // size field, as producer pipes do [I].
    const auto actual = static_cast<std::uint16_t>(done);
    const std::uint64_t size_field = pp.fifo_addr->value + std::uint64_t{ring_slot} * sizeof(BamDescHw) + 4;
    mem_write(size_field, &actual, sizeof actual);
  }
  return true;
}

}  // namespace qcesim::bam
