#include "model/register_bank.h"

#include <cstring>
#include <stdexcept>

namespace qcesim::model {

Register& RegisterBank::add(const std::string& name, std::uint32_t offset, std::uint32_t reset, Access access,
                            std::uint32_t tag) {
  if (offset % 4 != 0) throw std::invalid_argument(m_name + ": misaligned register " + name);
  if (find(offset)) throw std::invalid_argument(m_name + ": duplicate offset for " + name);
  Register r;
  r.name = name;
  r.offset = offset;
  r.reset = reset;
  r.value = reset;
  r.access = access;
  r.tag = tag;
  const std::size_t word = offset / 4;
  const std::size_t page = word / kWordsPerPage;
  if (page >= m_pages.size()) m_pages.resize(page + 1);
  if (!m_pages[page]) m_pages[page] = std::make_unique<Page>(Page{});
  m_regs.push_back(std::move(r));
  (*m_pages[page])[word % kWordsPerPage] = &m_regs.back();
  return m_regs.back();
}

void RegisterBank::missing(std::uint32_t offset) const {
  throw std::out_of_range(m_name + ": no register at offset " + std::to_string(offset));
}

void RegisterBank::reset() {
  for (auto& r : m_regs) r.value = r.reset;
}

bool RegisterBank::read(std::uint32_t offset, std::uint32_t& value) {
  Register* r = find(offset);
  if (!r) return false;
  if (r->access == Access::wo) {
    value = 0;
  } else {
    value = r->on_read ? r->on_read(*r) : r->value;
  }
  return true;
}

bool RegisterBank::write(std::uint32_t offset, std::uint32_t value) {
  Register* r = find(offset);
  if (!r) return false;
  if (r->access == Access::ro) return true;
  if (r->on_write) {
    r->on_write(*r, value);
  } else {
    r->value = value;
  }
  return true;
}

void RegisterBank::transport(tlm::tlm_generic_payload& trans) {
  const std::uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  if (trans.get_byte_enable_ptr() || addr % 4 != 0 || len == 0 || len % 4 != 0) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  unsigned char* p = trans.get_data_ptr();
  // A burst that reaches a missing register is refused whole, before any word takes effect.
  for (unsigned i = 4; i < len; i += 4)
    if (!find(static_cast<std::uint32_t>(addr + i))) {
      trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
  for (unsigned i = 0; i < len; i += 4) {
    const auto off = static_cast<std::uint32_t>(addr + i);
    std::uint32_t v = 0;
    bool ok;
    if (trans.is_read()) {
      ok = read(off, v);
      std::memcpy(p + i, &v, 4);  // little-endian bus
    } else {
      std::memcpy(&v, p + i, 4);
      ok = write(off, v);
    }
    if (!ok) {
      trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace qcesim::model
