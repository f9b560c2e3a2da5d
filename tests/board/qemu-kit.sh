#!/usr/bin/env bash
# The board kit on a real Linux: Debian's arm64 kernel and busybox-static (unpacked by
# scripts/setup.sh into build/guest-arm64/) boot under qemu-system-aarch64 (-M virt -cpu max,
# TCG) from an initramfs that holds the kit; the kit measures against the kernel's own software
# drivers (QEMU has no crypto engine), writes its archive to a raw virtio disk, and the host
# takes it out. Usage: qemu-kit.sh GUEST_DIR KIT_DIR OUT_DIR [KIT OPTIONS...]
# Writes OUT_DIR/board.tar.gz and OUT_DIR/console.log; exit 0 when the archive came out.
# With QCESIM_KIT_ARMHF set (the kit's options for it), the kit runs a second time under
# `linux32`: uname says armv8l, as an ARMv7 board's armv7l would pick the armhf build, so the
# 32-bit afalg-bench talks to AF_ALG through the kernel's compat system calls (an IPQ40xx runs
# that binary); its archive is OUT_DIR/board-armhf.tar.gz. Before it, the kit's watchdog for a
# busybox without timeout (tests/board/kit-timeout.sh) runs under busybox's sh; after it, AF_ALG's
# modules are unloaded and the kit runs once more, to say so on the console.
set -euo pipefail
guest=$1 kit=$2 out=$3
shift 3
root="$guest/root"
kernel_release=$(ls "$root/lib/modules" | head -n1)
[ -n "$kernel_release" ] || { echo "qemu-kit: no kernel in $root (run scripts/setup.sh)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/initramfs"
ir="$out/initramfs"
mkdir -p "$ir/bin" "$ir/kit" "$ir/lib/modules/$kernel_release/kernel"
cp "$root/bin/busybox" "$ir/bin/busybox"
cp "$kit/qcesim-measure" "$kit/afalg-bench-arm64" "$ir/kit/"
armhf_options=""
if [ -n "${QCESIM_KIT_ARMHF:-}" ]; then
  cp "$kit/afalg-bench-armhf" "$(dirname "$0")/kit-timeout.sh" "$ir/kit/"
  # shellcheck disable=SC2086 # the options are words, as on the kit's command line
  armhf_options=$(printf ' %q' $QCESIM_KIT_ARMHF)
fi
# The modules inserted at boot, in dependency order (the .deb ships no modules.dep), and
# tcrypt, which the kit loads itself. bam_dma binds to nothing on QEMU's virt board, but its
# functions are in /proc/kallsyms for the kit's list of the drivers' names.
modules="crypto/af_alg crypto/algif_hash crypto/algif_skcipher arch/arm64/crypto/sha256-arm64
  arch/arm64/crypto/sha2-ce arch/arm64/crypto/aes-ce-cipher arch/arm64/crypto/aes-ce-blk
  drivers/virtio/virtio_mmio drivers/block/virtio_blk drivers/dma/qcom/bam_dma"
for m in $modules crypto/tcrypt; do
  mkdir -p "$ir/lib/modules/$kernel_release/kernel/$(dirname "$m")"
  cp "$root/lib/modules/$kernel_release/kernel/$m.ko" "$ir/lib/modules/$kernel_release/kernel/$m.ko"
done
cp "$root/boot/config-$kernel_release" "$ir/kit/config"
kit_options=$(printf ' %q' "$@")
cat >"$ir/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /tmp /boot
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
cp /kit/config /boot/config-\$(uname -r)
for m in $(echo $modules); do insmod /lib/modules/\$(uname -r)/kernel/\$m.ko || echo "insmod \$m failed"; done
echo QCESIM-GUEST-UP
cd /tmp
sh /kit/qcesim-measure -o /tmp/board.tar.gz $kit_options
if [ -f /tmp/board.tar.gz ]; then
  cat /tmp/board.tar.gz >/dev/vda && sync && echo "QCESIM-ARCHIVE-BYTES \$(wc -c </tmp/board.tar.gz)"
fi
if [ -n "$armhf_options" ]; then
  # The kit's watchdog for a busybox without timeout (OpenWrt's), under busybox's own sh.
  sh /kit/kit-timeout.sh /kit/qcesim-measure sh && echo QCESIM-TMO-OK
  linux32 sh /kit/qcesim-measure -o /tmp/board-armhf.tar.gz $armhf_options
  # The second archive 32 MiB into the same disk (two virtio disks' names depend on probe order).
  if [ -f /tmp/board-armhf.tar.gz ]; then
    dd if=/tmp/board-armhf.tar.gz of=/dev/vda bs=1M seek=32 2>/dev/null && sync &&
      echo "QCESIM-ARMHF-BYTES \$(wc -c </tmp/board-armhf.tar.gz)"
  fi
  # And once without AF_ALG (a kernel without CONFIG_CRYPTO_USER_API_*): the kit must say so.
  rmmod algif_skcipher algif_hash af_alg && echo QCESIM-AF-ALG-UNLOADED
  linux32 sh /kit/qcesim-measure -o /tmp/no-af-alg.tar.gz -q -T -t 60
fi
poweroff -f
INIT
chmod +x "$ir/init" "$ir/kit/qcesim-measure"
(cd "$ir" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz"
truncate -s 64M "$out/disk.img"
# -cpu max with pauth-impdef: QEMU's architected pointer authentication is slow under TCG.
timeout "${QCESIM_QEMU_TIMEOUT:-900}" qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -smp 2 -m 512 \
  -nographic -nic none -no-reboot -kernel "$root/boot/vmlinuz-$kernel_release" -initrd "$out/initramfs.cpio.gz" \
  -append "console=ttyAMA0 rdinit=/init panic=-1 loglevel=4" \
  -drive file="$out/disk.img",format=raw,if=none,id=out -device virtio-blk-device,drive=out \
  </dev/null >"$out/console.log" 2>&1 || true
bytes=$(sed -n 's/.*QCESIM-ARCHIVE-BYTES \([0-9][0-9]*\).*/\1/p' "$out/console.log" | tail -n1)
if [ -z "$bytes" ]; then
  echo "qemu-kit: no archive came out of the guest; its console:" >&2
  tail -n 40 "$out/console.log" >&2
  exit 1
fi
[ "$bytes" -le $((32 << 20)) ] || { echo "qemu-kit: the archive ($bytes bytes) overlaps the second one's place" >&2; exit 1; }
head -c "$bytes" "$out/disk.img" >"$out/board.tar.gz"
if [ -n "$armhf_options" ]; then
  bytes32=$(sed -n 's/.*QCESIM-ARMHF-BYTES \([0-9][0-9]*\).*/\1/p' "$out/console.log" | tail -n1)
  if [ -z "$bytes32" ]; then
    echo "qemu-kit: no armhf archive came out of the guest; its console:" >&2
    tail -n 40 "$out/console.log" >&2
    exit 1
  fi
  dd if="$out/disk.img" of="$out/board-armhf.tar.gz" bs=1M skip=32 count="$bytes32" iflag=count_bytes status=none
  echo "qemu-kit: $out/board-armhf.tar.gz ($bytes32 bytes)" >&2
fi
rm -rf "$out/disk.img" "$ir"
echo "qemu-kit: $out/board.tar.gz ($bytes bytes)" >&2
