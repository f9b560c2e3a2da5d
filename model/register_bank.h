// Memory-mapped registers in the style of VCML's peripheral: each register is an object
// with a name (as the kernel headers spell it), an offset, a reset value, an access kind
// and optional read/write callbacks. A bank decodes 32-bit TLM accesses to them.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <tlm>
#include <vector>

namespace qcesim::model {

enum class Access { rw, ro, wo };

struct Register {
  std::string name;
  std::uint32_t offset = 0;
  std::uint32_t reset = 0;
  Access access = Access::rw;
  std::uint32_t value = 0;
  std::uint32_t tag = 0;  // per-instance index for banked registers (pipe, EE)
  // on_read returns the value to deliver; default: the stored value.
  std::function<std::uint32_t(Register&)> on_read;
  // on_write gets the written value; default: store it.
  std::function<void(Register&, std::uint32_t)> on_write;

  // The peripheral's named handler for this register (VCML's read/write callbacks):
  // `bank.add("GOPROC", REG_GOPROC).writes(this, &Qce::write_GOPROC)`.
  template <class T>
  Register& reads(T* owner, std::uint32_t (T::*handler)(Register&)) {
    on_read = [owner, handler](Register& r) { return (owner->*handler)(r); };
    return *this;
  }
  template <class T>
  Register& writes(T* owner, void (T::*handler)(Register&, std::uint32_t)) {
    on_write = [owner, handler](Register& r, std::uint32_t v) { (owner->*handler)(r, v); };
    return *this;
  }
};

class RegisterBank {
 public:
  explicit RegisterBank(std::string name) : m_name(std::move(name)) {}

  Register& add(const std::string& name, std::uint32_t offset, std::uint32_t reset = 0, Access access = Access::rw,
                std::uint32_t tag = 0);
  // Inline: every register access of every initiator decodes here.
  Register* find(std::uint32_t offset) { return lookup(offset); }
  const Register* find(std::uint32_t offset) const { return lookup(offset); }
  Register& at(std::uint32_t offset) {  // throws if absent (model-internal use)
    Register* r = find(offset);
    if (!r) missing(offset);
    return *r;
  }
  void reset();

  // Register-sized accesses; writes to read-only registers are ignored (like the hardware),
  // reads of write-only ones return 0. Returns false for an offset with no register.
  bool read(std::uint32_t offset, std::uint32_t& value);
  bool write(std::uint32_t offset, std::uint32_t value);

  // Decodes a TLM payload: 4-byte aligned, a multiple of 4 bytes, each word a register.
  void transport(tlm::tlm_generic_payload& trans);

  const std::string& name() const { return m_name; }
  std::size_t size() const { return m_regs.size(); }

 private:
  std::string m_name;
  [[noreturn]] void missing(std::uint32_t offset) const;
  std::deque<Register> m_regs;  // deque: references stay valid as registers are added
  // Register by offset / 4 (null: none), in 1 KiB pages made when a register lands in them: a
  // decode per access must not hash, and a flat table would span a BAM's pipe windows (hundreds
  // of KiB written afresh by every forked run).
  static constexpr std::size_t kWordsPerPage = 256;
  using Page = std::array<Register*, kWordsPerPage>;
  std::vector<std::unique_ptr<Page>> m_pages;
  Register* lookup(std::uint32_t offset) const {
    const std::size_t word = offset / 4;
    const std::size_t page = word / kWordsPerPage;
    if (offset % 4 != 0 || page >= m_pages.size() || !m_pages[page]) return nullptr;
    return (*m_pages[page])[word % kWordsPerPage];
  }
};

}  // namespace qcesim::model
