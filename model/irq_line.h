// A level-sensitive interrupt line between a device model and the CPU's interrupt controller.
// Devices (bam/) drive it; the kernel model (cpu/) delivers it: it lives below both.
#pragma once

#include <functional>
#include <systemc>

namespace qcesim::model {

// A level-sensitive interrupt line as the GIC samples it: the device's level now (no signal
// delta delays), and an event on every rise.
class IrqLine {
 public:
  virtual ~IrqLine() = default;
  virtual bool level() const = 0;
  virtual const sc_core::sc_event& rise_event() const = 0;

  // The interrupt controller's side, set by request_irq: on each rising edge the line asks
  // `delay` (GIC latency, the core's wake-up from idle) and notifies delivered_event() that
  // much later, so the CPU's hardirq thread wakes once per interrupt, at delivery.
  void set_delivery(std::function<sc_core::sc_time()> delay) { m_delivery = std::move(delay); }
  const sc_core::sc_event& delivered_event() const { return m_delivered; }
  const sc_core::sc_time& delivery_due() const { return m_due; }
  // Called by the line's owner on each rising edge.
  void rising_edge() {
    if (!m_delivery) return;
    const sc_core::sc_time d = m_delivery();
    m_due = sc_core::sc_time_stamp() + d;
    m_delivered.notify(d);
  }

 private:
  std::function<sc_core::sc_time()> m_delivery;
  sc_core::sc_event m_delivered;
  sc_core::sc_time m_due;
};

}  // namespace qcesim::model
