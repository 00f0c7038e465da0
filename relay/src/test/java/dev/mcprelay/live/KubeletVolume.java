package dev.mcprelay.live;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * A folder as the kubelet mounts a ConfigMap or a Secret: each file a link {@code name -> ..data/name}, {@code ..data}
 * a link to the folder of the current version, which an update replaces by writing a new version's folder and
 * swapping {@code ..data} to it in one rename ({@link #write}).
 */
final class KubeletVolume {

	private final Path folder;

	private int version;

	KubeletVolume(Path folder) {
		this.folder = folder;
	}

	Path folder() {
		return folder;
	}

	/** The files' new content, as the kubelet updates a volume: a new folder, then {@code ..data} swapped to it. */
	void write(Map<String, String> files) throws IOException {
		Path next = folder.resolve("..v" + (++version));
		Files.createDirectory(next);
		for (Map.Entry<String, String> file : files.entrySet()) {
			Files.writeString(next.resolve(file.getKey()), file.getValue());
		}
		Path link = folder.resolve("..data_tmp");
		Files.createSymbolicLink(link, next.getFileName());
		Files.move(link, folder.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		for (String name : files.keySet()) {
			Path file = folder.resolve(name);
			if (!Files.isSymbolicLink(file)) {
				Files.createSymbolicLink(file, Path.of("..data", name));
			}
		}
	}

}
