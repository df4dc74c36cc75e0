use super::*;

fn state(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect()
}

fn only_entry(cache: &PrefixCache) -> PathBuf {
    let files = entry_files(&cache.folder);
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn an_entry_comes_back_whole_and_the_longest_shared_prefix_wins() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PrefixCache::new(dir.path(), "model a, ctx 4096", DEFAULT_MAX_BYTES);
    assert!(cache.longest_prefix(&[1, 2, 3], 0).is_none());
    cache.store(&[1, 2, 3, 4], &state(1000, 1)).unwrap();
    cache.store(&[1, 2, 9], &state(10, 2)).unwrap();
    assert!(cache.holds(&[1, 2, 3, 4]) && !cache.holds(&[1, 2, 3]));
    // A variant: the prompt shares three tokens with the first entry, two with the second.
    let (path, shared) = cache.longest_prefix(&[1, 2, 3, 7, 7], 0).unwrap();
    assert_eq!(shared, 3);
    let entry = cache.load(&path).unwrap();
    assert_eq!(entry.tokens, vec![1, 2, 3, 4]);
    assert_eq!(entry.state, state(1000, 1));
    // Nothing longer than what the caller already has is offered.
    assert!(cache.longest_prefix(&[1, 2, 3, 7, 7], 3).is_none());
    // Another key sees nothing of it.
    let other = PrefixCache::new(dir.path(), "model b, ctx 4096", DEFAULT_MAX_BYTES);
    assert!(other.longest_prefix(&[1, 2, 3, 4], 0).is_none());
}

#[test]
fn damaged_truncated_and_foreign_entries_are_deleted_never_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PrefixCache::new(dir.path(), "key", DEFAULT_MAX_BYTES);
    let tokens = [5, 6, 7, 8];
    type Harm = Box<dyn Fn(&Path)>;
    let damage: Vec<(&str, Harm)> = vec![
        (
            "a flipped state byte",
            Box::new(|p: &Path| {
                let mut bytes = std::fs::read(p).unwrap();
                let last = bytes.len() - 1;
                bytes[last] ^= 0xff;
                std::fs::write(p, bytes).unwrap();
            }),
        ),
        (
            "truncated",
            Box::new(|p: &Path| {
                let bytes = std::fs::read(p).unwrap();
                std::fs::write(p, &bytes[..bytes.len() - 100]).unwrap();
            }),
        ),
        (
            "cut in its header",
            Box::new(|p: &Path| {
                let bytes = std::fs::read(p).unwrap();
                std::fs::write(p, &bytes[..20]).unwrap();
            }),
        ),
        (
            "empty",
            Box::new(|p: &Path| std::fs::write(p, b"").unwrap()),
        ),
        (
            "another format",
            Box::new(|p: &Path| std::fs::write(p, b"GGUF\x03\x00\x00\x00garbage").unwrap()),
        ),
        (
            "a header that is not JSON",
            Box::new(|p: &Path| {
                let mut bytes = std::fs::read(p).unwrap();
                bytes[MAGIC.len() + 4] = b'!';
                std::fs::write(p, bytes).unwrap();
            }),
        ),
        (
            "made under another key and copied in",
            Box::new(|p: &Path| {
                let dir = tempfile::tempdir().unwrap();
                let foreign = PrefixCache::new(dir.path(), "other key", DEFAULT_MAX_BYTES);
                foreign.store(&[5, 6, 7, 8], &state(500, 3)).unwrap();
                std::fs::copy(only_entry(&foreign), p).unwrap();
            }),
        ),
    ];
    for (what, harm) in damage {
        cache.store(&tokens, &state(500, 3)).unwrap();
        let path = only_entry(&cache);
        harm(&path);
        let offered = cache.longest_prefix(&tokens, 0);
        if let Some((offered, _)) = offered {
            assert!(cache.load(&offered).is_none(), "{what}: loaded");
        }
        // Damaged entries of the cache's are deleted; a file that does not begin as an entry
        // does (empty, another format) is not the cache's to delete: left, and never read.
        if begins_with_magic(&path) || !path.exists() {
            assert!(!path.exists(), "{what}: not deleted");
        } else {
            assert!(matches!(what, "empty" | "another format"), "{what}");
            assert!(
                cache.longest_prefix(&tokens, 0).is_none(),
                "{what}: offered"
            );
            std::fs::remove_file(&path).unwrap();
        }
    }
    // An entry renamed to other tokens' hash is caught as well.
    cache.store(&tokens, &state(500, 3)).unwrap();
    let path = only_entry(&cache);
    let renamed = cache.path_of(&[5, 6]);
    std::fs::rename(&path, &renamed).unwrap();
    let (offered, shared) = cache.longest_prefix(&tokens, 0).unwrap();
    assert_eq!(shared, 4);
    assert!(cache.load(&offered).is_none());
    assert!(!renamed.exists());
}

#[test]
fn a_full_cache_evicts_the_least_recently_used_entries() {
    let dir = tempfile::tempdir().unwrap();
    let entry_size = |cache: &PrefixCache| std::fs::metadata(only_entry(cache)).unwrap().len();
    let probe = PrefixCache::new(&dir.path().join("probe"), "k", DEFAULT_MAX_BYTES);
    probe.store(&[1], &state(10_000, 0)).unwrap();
    let size = entry_size(&probe);
    // Room for two entries.
    let cache = PrefixCache::new(dir.path(), "k", 2 * size + size / 2);
    std::fs::remove_dir_all(dir.path().join("probe")).unwrap();
    cache.store(&[1], &state(10_000, 1)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    cache.store(&[2], &state(10_000, 2)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    // Using the first makes the second the least recently used.
    assert!(cache.load(&cache.path_of(&[1])).is_some());
    std::thread::sleep(std::time::Duration::from_millis(20));
    cache.store(&[3], &state(10_000, 3)).unwrap();
    assert!(cache.holds(&[1]) && !cache.holds(&[2]) && cache.holds(&[3]));
    assert_eq!(usage(dir.path()), (2, 2 * size));
    assert_eq!(clear(dir.path()).unwrap(), 2);
    assert_eq!(usage(dir.path()), (0, 0));
}

#[test]
fn writers_at_once_leave_whole_entries() {
    let dir = tempfile::tempdir().unwrap();
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let root = dir.path().to_path_buf();
            std::thread::spawn(move || {
                // Each writer its own cache value, as two processes would have.
                let cache = PrefixCache::new(&root, "k", DEFAULT_MAX_BYTES);
                for round in 0..5 {
                    cache.store(&[1, 2, 3], &state(200_000, 7)).unwrap();
                    cache
                        .store(&[1, 2, 10 + w], &state(50_000, w as u8))
                        .unwrap();
                    if let Some((path, _)) = cache.longest_prefix(&[1, 2, 3], 2) {
                        let entry = cache.load(&path).unwrap_or_else(|| panic!("{w} {round}"));
                        assert_eq!(entry.state, state(200_000, 7));
                    }
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let cache = PrefixCache::new(dir.path(), "k", DEFAULT_MAX_BYTES);
    assert_eq!(
        usage(dir.path()).0,
        5,
        "[1, 2, 3] once, [1, 2, 10 + w] each"
    );
    assert!(cache.load(&cache.path_of(&[1, 2, 3])).is_some());
}

#[test]
fn sizes_parse_with_binary_units() {
    assert_eq!(parse_size("4G"), Some(4 << 30));
    assert_eq!(parse_size("500m"), Some(500 << 20));
    assert_eq!(parse_size(" 1048576 "), Some(1 << 20));
    assert_eq!(parse_size("lots"), None);
    assert_eq!(parse_size(""), None);
    assert_eq!(parse_size("99999999999G"), None);
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                found.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn in_a_shared_folder_only_the_caches_own_files_are_counted_or_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    let plant = |relative: &str, bytes: &[u8]| {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        std::fs::File::options()
            .append(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    };
    // Another program's files: temporaries an hour old, `.kv` files in its folders, one even in a
    // folder named like a key folder but without the cache's marker, and one in a marked folder
    // under a name the cache never gives.
    let hash = "ab".repeat(32);
    plant("editor/notes.txt.tmp", b"unsaved work");
    plant("session.tmp", b"another program's");
    plant("other-app/index.kv", b"MCPICK-KV1 looks like ours");
    plant(
        &format!("0123456789abcdef/{hash}.kv"),
        b"MCPICK-KV1 not marked",
    );
    plant(
        &format!("0123456789abcdef/.{hash}.kv.1-1.tmp"),
        b"not marked either",
    );
    let before = snapshot(root);
    let cache = PrefixCache::new(root, "k", 1);
    plant(
        &format!(
            "{}/notes.kv",
            cache.folder.file_name().unwrap().to_str().unwrap()
        ),
        b"x",
    );
    let before_with_note = snapshot(root);
    // A tiny cache: every store evicts everything of its own.
    cache.store(&[1, 2, 3], &state(5_000, 1)).unwrap();
    cache.store(&[4, 5, 6], &state(5_000, 2)).unwrap();
    assert_eq!(usage(root).0, 0, "the cache's own entries were evicted");
    let cache = PrefixCache::new(root, "k", DEFAULT_MAX_BYTES);
    cache.store(&[7], &state(100, 3)).unwrap();
    // An entry killed mid-write an hour ago is the cache's to sweep.
    let killed = cache.folder.join(format!(".{hash}.kv.99-0.tmp"));
    std::fs::write(&killed, b"half").unwrap();
    std::fs::File::options()
        .append(true)
        .open(&killed)
        .unwrap()
        .set_modified(old)
        .unwrap();
    evict(root, DEFAULT_MAX_BYTES);
    assert!(!killed.exists());
    assert_eq!(usage(root).0, 1);
    assert_eq!(clear(root).unwrap(), 1);
    let after: Vec<_> = snapshot(root)
        .into_iter()
        .filter(|(path, _)| !path.ends_with(KEY_MARKER))
        .collect();
    assert_eq!(after, before_with_note);
    assert!(before.iter().all(|file| after.contains(file)));
}

#[test]
fn claimed_lengths_are_checked_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PrefixCache::new(dir.path(), "key", 256 << 20);
    let tokens = [1, 2, 3];
    cache.store(&tokens, &state(100, 1)).unwrap();
    let path = cache.path_of(&tokens);
    // A header that claims a gigabyte, in a file that is that long (sparse).
    let mut claim = MAGIC.to_vec();
    claim.extend((1u32 << 30).to_le_bytes());
    std::fs::write(&path, &claim).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(1 << 31)
        .unwrap();
    assert!(cache.longest_prefix(&tokens, 0).is_none());
    assert!(!path.exists(), "deleted as unusable");
    // A state of 384 MiB claimed in a sparse file of that size: refused by the cache's own size
    // before a byte of it is read.
    let header = serde_json::to_vec(&Header {
        key: "key".into(),
        tokens: tokens.to_vec(),
        state_bytes: 3 << 27,
        state_sha256: "00".repeat(32),
    })
    .unwrap();
    let write_claim = |path: &Path| {
        let mut bytes = MAGIC.to_vec();
        bytes.extend((header.len() as u32).to_le_bytes());
        bytes.extend(&header);
        std::fs::write(path, &bytes).unwrap();
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_len(bytes.len() as u64 + (3 << 27)).unwrap();
    };
    write_claim(&path);
    let started = std::time::Instant::now();
    assert!(cache.load(&path).is_none());
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    // Under a cache large enough to hold it, the checksum streams and fails without the state
    // ever being held in memory.
    let roomy = PrefixCache::new(dir.path(), "key", 4 << 30);
    write_claim(&path);
    let peak = || {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
            .map(|kib| kib << 10)
    };
    let before = peak();
    assert!(roomy.load(&path).is_none());
    if let (Some(before), Some(after)) = (before, peak()) {
        assert!(
            after < before + (256 << 20),
            "peak memory rose from {before} to {after} bytes"
        );
    }
    // A state length no file can have: refused, not added up past the end of a number.
    let overflowing = serde_json::to_vec(&Header {
        key: "key".into(),
        tokens: tokens.to_vec(),
        state_bytes: u64::MAX,
        state_sha256: "00".repeat(32),
    })
    .unwrap();
    let mut bytes = MAGIC.to_vec();
    bytes.extend((overflowing.len() as u32).to_le_bytes());
    bytes.extend(&overflowing);
    std::fs::write(&path, &bytes).unwrap();
    assert!(roomy.load(&path).is_none());
    // A link in the cache's folder is not an entry, whatever it points at.
    let target = dir.path().join("elsewhere.kv");
    cache.store(&[9], &state(100, 9)).unwrap();
    std::fs::rename(cache.path_of(&[9]), &target).unwrap();
    std::os::unix::fs::symlink(&target, cache.path_of(&[9])).unwrap();
    assert!(cache.longest_prefix(&[9], 0).is_none());
    assert!(cache.load(&cache.path_of(&[9])).is_none());
    assert!(
        target.exists(),
        "the file a link points at is never deleted"
    );
}

#[test]
fn a_key_folder_an_earlier_version_wrote_is_still_the_caches() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PrefixCache::new(dir.path(), "old key", DEFAULT_MAX_BYTES);
    cache.store(&[1, 2], &state(100, 1)).unwrap();
    // As an earlier version left it: no marker.
    std::fs::remove_file(cache.folder.join(KEY_MARKER)).unwrap();
    assert_eq!(usage(dir.path()).0, 1);
    assert_eq!(clear(dir.path()).unwrap(), 1);
    // A folder named like one, holding a file under an entry's name that is no entry: not ours.
    let foreign = dir.path().join("0123456789abcdef");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(
        foreign.join(format!("{}.kv", "cd".repeat(32))),
        b"MCPICK-KV1 but no header",
    )
    .unwrap();
    assert_eq!(usage(dir.path()).0, 0);
    assert_eq!(clear(dir.path()).unwrap(), 0);
    assert!(foreign.join(format!("{}.kv", "cd".repeat(32))).exists());
}
