/**
 * The two Python programs behind a kept final file system, run by `python3 -I -S` in helper containers (every trial
 * image has python3: the in-sandbox agent needs it). Both are the only place the archive's format lives:
 *
 * - CAPTURE_SCRIPT runs in a container from the image committed for the verifier. argv[1] is a JSON list of
 *   `[path, kind]` from the agent container's `docker diff` (kind 0 changed, 1 added, 2 deleted). It writes to stdout a
 *   PAX tar of every changed or added path (each entry on its own, never recursive: a folder's unchanged contents are
 *   not in the diff), owners, modes, times and links kept; a deleted path is an empty `.wh.<name>` entry beside where
 *   it was (the OCI layer convention), followed by the path itself when the agent made it again.
 * - RESTORE_SCRIPT runs as root in a container from the task image. argv[1] is the gzip archive; it is unlinked once
 *   open, so it is not part of what gets committed. Whiteouts remove their path; every other entry first removes
 *   what stands at its path (unless both are folders), so a link in the image is replaced, never written through.
 */

export const CAPTURE_SCRIPT = `
import json, os, sys, tarfile
changes = json.load(open(sys.argv[1]))
out = tarfile.open(fileobj=sys.stdout.buffer, mode='w|', format=tarfile.PAX_FORMAT)
for path, kind in sorted(changes):
    name = path.strip('/')
    if not name:
        continue
    if kind == 2:
        head, tail = os.path.split(name)
        out.addfile(tarfile.TarInfo(os.path.join(head, '.wh.' + tail)))
    if os.path.lexists('/' + name):
        out.add('/' + name, arcname=name, recursive=False)
out.close()
sys.stdout.buffer.flush()
`;

export const RESTORE_SCRIPT = `
import errno, os, shutil, sys, tarfile
def remove(path):
    """False when the path is a mount point of this container (Docker's own, e.g. docker-init): left as it is."""
    if os.path.normpath(path) == '/':
        return False
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.unlink(path)
    except OSError as error:
        if error.errno != errno.EBUSY:
            raise
        print('left in place (a mount point): ' + path, file=sys.stderr)
        return False
    return True
archive = tarfile.open(sys.argv[1], 'r:gz')
os.unlink(sys.argv[1])
entries = []
for member in archive.getmembers():
    head, tail = os.path.split(member.name)
    if tail.startswith('.wh.'):
        remove(os.path.join('/', head, tail[4:]))
        continue
    target = os.path.join('/', member.name)
    if member.isdir() and os.path.isdir(target) and not os.path.islink(target):
        entries.append(member)
    elif remove(target):
        entries.append(member)
trusted = {'filter': 'fully_trusted'} if hasattr(tarfile, 'fully_trusted_filter') else {}
archive.extractall('/', members=entries, numeric_owner=True, **trusted)
archive.close()
print(len(entries))
`;
